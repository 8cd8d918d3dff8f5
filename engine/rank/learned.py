"""A learned ranker whose every score is the exact sum of named parts, one per feature plus a base.

Two model kinds, one interface:
- "lambdarank": LightGBM's gradient-boosted trees trained with the LambdaRank objective (Burges, "From RankNet to
  LambdaRank to LambdaMART", MSR-TR-2010-82). Its parts are TreeSHAP values (`pred_contrib`; Lundberg et al.,
  "Consistent Individualized Feature Attribution for Tree Ensembles", 2018): for every row they add up to the
  model's raw score.
- "linear": a logistic regression over standardised features (scikit-learn). A part is a weight times the feature's
  distance from its training mean, in standard deviations, so a feature at its average contributes 0.

Either way a row's score is computed as base + the sum of its parts, so the parts sum to it by construction; the
tree model's own raw prediction agrees within floating-point error (tests check 1e-9).

A ranker may average several models, each trained on a share of the training table's clusters (bagging, Breiman,
"Bagging Predictors", Machine Learning 24, 1996): its parts are the models' parts averaged, so they still sum to its
score. Trained on a few hundred questions, one model moves by several questions when its inputs move a little; the
average of a few moves less.

A model is saved as JSON holding LightGBM's text model or the linear weights: data, never pickle. Training is
deterministic (one thread, fixed seed, `deterministic=True`), so the same table gives the same file, byte for byte.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from ..errors import PathLensError

KINDS = ("lambdarank", "linear")
FORMAT = "pathlens-ranker/2"


@dataclass(frozen=True)
class RankerParams:
    """How a ranker is trained. The tree settings keep models small: a few hundred labelled groups train it."""

    kind: str = "lambdarank"
    rounds: int = 200
    leaves: int = 7
    learning_rate: float = 0.05
    min_data_in_leaf: int = 10
    seed: int = 42
    c: float = 1.0  # the linear model's inverse regularisation strength
    bag: int = 1  # models averaged; more than 1: each trained on `bag_share` of the table's clusters, drawn by `seed`
    bag_share: float = 0.8

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise PathLensError(f"ranker kind: {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.bag < 1 or not 0 < self.bag_share <= 1:
            raise PathLensError(f"ranker bag: {self.bag} models of {self.bag_share} of the clusters; need at least 1 "
                                "model and a share in (0, 1]")
        for name in ("rounds", "leaves", "min_data_in_leaf"):
            if getattr(self, name) < 1:
                raise PathLensError(f"ranker {name}: must be at least 1, got {getattr(self, name)}")


@dataclass(frozen=True, eq=False)
class TrainingTable:
    """Rows to learn from: one row per candidate, grouped by question (`groups`: each question's row count, in row
    order); `labels` 1 for a relevant candidate, else 0 (graded labels are allowed)."""

    features: tuple[str, ...]
    x: np.ndarray  # (rows, features), float64
    labels: np.ndarray  # (rows,), int
    groups: tuple[int, ...]
    clusters: tuple[str, ...] = ()  # each group's cluster (its filing), drawn whole by bagging; (): each group its own

    def __post_init__(self) -> None:
        if self.x.ndim != 2 or self.x.shape[1] != len(self.features):
            raise PathLensError(f"training table: {self.x.shape} rows do not match {len(self.features)} features")
        if self.labels.shape != (self.x.shape[0],) or sum(self.groups) != self.x.shape[0]:
            raise PathLensError("training table: labels and groups must cover every row once")
        if self.clusters and len(self.clusters) != len(self.groups):
            raise PathLensError(f"training table: {len(self.clusters)} clusters for {len(self.groups)} groups")
        if not np.isfinite(self.x).all():
            raise PathLensError("training table: a feature is not a finite number")


@dataclass(frozen=True, eq=False)
class Parts:
    """Scores and their parts for a set of candidates: score[i] == base + parts[i].sum()."""

    features: tuple[str, ...]
    base: float  # the part no feature accounts for (the trees' expected value, the linear intercept)
    parts: np.ndarray  # (rows, features)
    scores: np.ndarray  # (rows,)

    def named(self, row: int) -> tuple[tuple[str, float], ...]:
        """A row's parts by name, largest in size first; the base last."""
        order = np.argsort(-np.abs(self.parts[row]), kind="stable")
        return tuple((self.features[j], float(self.parts[row, j])) for j in order) + (("base", self.base),)


@dataclass(frozen=True, eq=False)
class Ranker:
    """A trained ranker: its features by name, its kind, its models as data (averaged when more than one), and what
    it was trained on."""

    features: tuple[str, ...]
    kind: str
    models: tuple[str, ...]  # LightGBM's text models, or the linear models' JSON
    about: Mapping[str, object] = field(default_factory=dict)  # training data, parameters, figures: shown to users

    def parts(self, x: np.ndarray) -> Parts:
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != len(self.features):
            raise PathLensError(f"ranker: expected {len(self.features)} features per row, got shape {x.shape}")
        each = [_model_parts(self.kind, m, x) for m in self.models]
        base = float(np.mean([b for b, _ in each]))
        parts = np.mean([p for _, p in each], axis=0)
        return Parts(self.features, base, parts, base + parts.sum(axis=1))

    def raw_scores(self, x: np.ndarray) -> np.ndarray:
        """The models' own predictions averaged, independent of the parts (tests compare the two)."""
        x = np.asarray(x, dtype=np.float64)
        return np.mean([_raw(self.kind, m, x) for m in self.models], axis=0)

    def effects(self) -> tuple[tuple[str, float], ...]:
        """Each feature's overall effect, largest first: the trees' total gain, or the linear weight's size, as a
        share of each model's, averaged over the models."""
        shares = []
        for m in self.models:
            w = np.abs(_linear(m)["coef"]) if self.kind == "linear" else _booster(m).feature_importance("gain")
            shares.append(w / (float(w.sum()) or 1.0))
        weights = np.mean(shares, axis=0)
        order = np.argsort(-weights, kind="stable")
        return tuple((self.features[j], float(weights[j])) for j in order)

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "kind": self.kind, "features": list(self.features),
                           "about": dict(self.about), "models": list(self.models)}, indent=1, sort_keys=True) + "\n"


def _model_parts(kind: str, model: str, x: np.ndarray) -> tuple[float, np.ndarray]:
    """(base, parts) of one model: its rows' parts sum, with the base, to its score."""
    if kind == "linear":
        lin = _linear(model)
        return float(lin["intercept"]), lin["coef"] * (x - lin["mean"]) / lin["scale"]
    if not len(x):
        return 0.0, np.zeros((0, x.shape[1]))
    contrib = _booster(model).predict(x, pred_contrib=True)
    return float(contrib[0, -1]), contrib[:, :-1]  # TreeSHAP's expected value: the same for every row


def _raw(kind: str, model: str, x: np.ndarray) -> np.ndarray:
    if kind == "linear":
        lin = _linear(model)
        return ((x - lin["mean"]) / lin["scale"]) @ lin["coef"] + lin["intercept"]
    return _booster(model).predict(x, raw_score=True)


def train(table: TrainingTable, params: RankerParams = RankerParams(), about: Mapping[str, object] | None = None) -> Ranker:
    """A ranker fitted to the table, deterministically: one model, or `params.bag` models each on a share of the
    table's clusters, drawn with `params.seed`."""
    if table.labels.max(initial=0) <= 0:
        raise PathLensError("training table: no candidate is labelled relevant, so there is nothing to learn")
    info = {"params": {k: getattr(params, k) for k in RankerParams.__dataclass_fields__}, **(about or {})}
    tables = [table] if params.bag == 1 else _bags(table, params)
    return Ranker(table.features, params.kind, tuple(_fit(t, params) for t in tables), info)


def _bags(table: TrainingTable, params: RankerParams) -> list[TrainingTable]:
    """`params.bag` tables, each of the groups of `params.bag_share` of the clusters (at least one), drawn in turn by
    one generator seeded with `params.seed`; a table with no relevant row is drawn again."""
    clusters = table.clusters or tuple(str(i) for i in range(len(table.groups)))
    names = sorted(set(clusters))
    take = max(1, round(params.bag_share * len(names)))
    starts = np.concatenate([[0], np.cumsum(table.groups)])
    rng = np.random.default_rng(params.seed)
    out: list[TrainingTable] = []
    while len(out) < params.bag:
        chosen = set(rng.choice(names, take, replace=False).tolist())
        keep = [g for g, c in enumerate(clusters) if c in chosen]
        rows = np.concatenate([np.arange(starts[g], starts[g + 1]) for g in keep])
        if table.labels[rows].max(initial=0) > 0:
            out.append(TrainingTable(table.features, table.x[rows], table.labels[rows],
                                     tuple(table.groups[g] for g in keep), tuple(clusters[g] for g in keep)))
    return out


def _fit(table: TrainingTable, params: RankerParams) -> str:
    """One model as data: LightGBM's text model, or the linear model's JSON."""
    if params.kind == "linear":
        from sklearn.linear_model import LogisticRegression
        mean = table.x.mean(axis=0)
        scale = table.x.std(axis=0)
        scale[scale == 0] = 1.0
        model = LogisticRegression(C=params.c, max_iter=2000, random_state=params.seed)
        model.fit((table.x - mean) / scale, (table.labels > 0).astype(int))
        return json.dumps({"coef": model.coef_[0].tolist(), "intercept": float(model.intercept_[0]),
                           "mean": mean.tolist(), "scale": scale.tolist()})
    import lightgbm as lgb
    settings = {"objective": "lambdarank", "deterministic": True, "force_row_wise": True, "num_threads": 1,
                "seed": params.seed, "verbose": -1, "num_leaves": params.leaves, "learning_rate": params.learning_rate,
                "min_data_in_leaf": params.min_data_in_leaf, "lambdarank_truncation_level": 20,
                "label_gain": list(range(0, 32))}
    data = lgb.Dataset(table.x, table.labels, group=list(table.groups), feature_name=_safe_names(table.features),
                       free_raw_data=True)
    return lgb.train(settings, data, num_boost_round=params.rounds).model_to_string()


def load(path: str | Path) -> Ranker:
    """A ranker saved by `save`; a file of another shape is named with what is wrong."""
    path = Path(path)
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise PathLensError(f"{path}: not a saved ranker ({e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise PathLensError(f"{path}: not a saved ranker (field 'format' is not {FORMAT!r})")
    for name, kind in (("kind", str), ("features", list), ("models", list), ("about", dict)):
        if not isinstance(data.get(name), kind):
            raise PathLensError(f"{path}: field {name!r} is missing or not a {kind.__name__}")
    if data["kind"] not in KINDS:
        raise PathLensError(f"{path}: field 'kind': {data['kind']!r} is not one of {', '.join(KINDS)}")
    if not data["models"] or not all(isinstance(m, str) for m in data["models"]):
        raise PathLensError(f"{path}: field 'models' must list one model or more, each as text")
    return Ranker(tuple(data["features"]), data["kind"], tuple(data["models"]), data["about"])


def save(ranker: Ranker, path: str | Path) -> None:
    Path(path).write_text(ranker.to_json(), "utf-8")


def _safe_names(names: Sequence[str]) -> list[str]:
    """LightGBM's feature names may not hold JSON's special characters; the ranker keeps the readable ones."""
    return [f"f{i}" for i in range(len(names))]


@lru_cache(maxsize=8)
def _booster(text: str):
    import lightgbm as lgb
    return lgb.Booster(model_str=text)


@lru_cache(maxsize=8)
def _linear_cached(text: str):
    d = json.loads(text)
    return {k: np.asarray(v, dtype=np.float64) for k, v in d.items()}


def _linear(text: str) -> dict[str, np.ndarray]:
    return _linear_cached(text)


__all__ = ["KINDS", "Parts", "Ranker", "RankerParams", "TrainingTable", "load", "save", "train"]
