"""A small hand-made data room of filings: two fiscal years of one company's 10-K, page by page, as text
(for the engine's tests) or as PDFs (for the app's), so a test knows exactly which page holds what."""

from __future__ import annotations

from pathlib import Path

from tests.pdfmaker import make_pdf, text_page


def cover(year: int) -> str:
    return (f"UNITED STATES SECURITIES AND EXCHANGE COMMISSION\nFORM 10-K\n"
            f"ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d)\nFor the fiscal year ended May 31, {year}\n"
            "ACME WIDGETS, INC.\n(Exact name of registrant as specified in its charter)\n"
            "Title of each class Trading Symbol Name of each exchange on which registered\n"
            "Class B Common Stock ACMW New York Stock Exchange")


def cash_flows(year: int, capex: int) -> str:
    rows = [f"Net income {100 + year % 10} 90 80", f"Depreciation 40 {38} 35",
            f"Additions to property, plant and equipment ({capex:,}) (1,105) (1,143)",
            "Repurchase of common stock (4,254) (3,223) (3,238)", "Dividends — common and preferred (1,243) (1,133) (1,022)"]
    rows += [f"Other operating item {i} {i} {i + 1} {i + 2}" for i in range(1, 8)]
    return f"ACME WIDGETS, INC.\nCONSOLIDATED STATEMENTS OF CASH FLOWS\nYEAR ENDED MAY 31,\n(In millions) {year} {year - 1} {year - 2}\n" + "\n".join(rows)


def balance_sheet(year: int) -> str:
    rows = ["Inventories 5,261 5,055", "Property, plant and equipment, net 4,454 3,989",
            "TOTAL ASSETS $ 22,536 $ 23,259", "Long-term debt (see Note 8) 3,468 3,471"]
    rows += [f"Other balance item {i} {i},000 {i},100" for i in range(1, 12)]
    return f"ACME WIDGETS, INC.\nCONSOLIDATED BALANCE SHEETS\nMAY 31,\n(In millions) {year} {year - 1}\n" + "\n".join(rows)


def filing_pages(year: int, capex: int) -> list[str]:
    return [
        cover(year),
        "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS\nOur business grew. Our long-term debt is described in "
        "Note 8 — Long-Term Debt in the accompanying Notes to the Consolidated Financial Statements.\n"
        f"The widget market in fiscal {year} was strong.",
        "ITEM 8. FINANCIAL STATEMENTS AND SUPPLEMENTARY DATA\nTable of contents\nConsolidated Statements of Income 40\n"
        "Consolidated Balance Sheets 41\nConsolidated Statements of Cash Flows 42",
        balance_sheet(year),
        cash_flows(year, capex),
        "NOTE 8 — LONG-TERM DEBT\nLong-term debt comprises the following notes.\n2.375% Notes due 2026 1,000 1,000\n"
        "3.875% Notes due 2045 1,500 1,500",
        "ITEM 9. CHANGES IN AND DISAGREEMENTS WITH ACCOUNTANTS\nNone.",
    ]



def write_pdfs(folder: Path) -> Path:
    """ACME_2019_10K.pdf and ACME_2020_10K.pdf in `folder` (capex 1,028 and 1,119 on page 5)."""
    folder.mkdir(parents=True, exist_ok=True)
    for year, capex in ((2019, 1_028), (2020, 1_119)):
        pages = [text_page(*page.replace("—", "-").split("\n")) for page in filing_pages(year, capex)]
        (folder / f"ACME_{year}_10K.pdf").write_bytes(make_pdf(pages))
    return folder
