"""The shared learned ranker: its parts sum to its scores, it learns what the labels say, it retrains bit for bit,
and a saved model is data that loads back, or is named as not a ranker."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.errors import PathLensError
from engine.rank.learned import Ranker, RankerParams, TrainingTable, load, save, train


def _table(seed: int = 0, groups: int = 60, per: int = 12) -> TrainingTable:
    """Each group's relevant rows are those with a high first feature and a positive second; the third is noise."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(groups * per, 3))
    labels = ((x[:, 0] > 0.3) & (x[:, 1] > 0)).astype(int)
    return TrainingTable(("signal", "gate", "noise"), x, labels, (per,) * groups)


@pytest.mark.parametrize("kind", ["lambdarank", "linear"])
def test_every_score_is_the_exact_sum_of_its_parts(kind):
    table = _table()
    ranker = train(table, RankerParams(kind=kind, rounds=40))
    parts = ranker.parts(table.x)
    assert np.array_equal(parts.scores, parts.base + parts.parts.sum(axis=1))
    assert np.abs(parts.scores - ranker.raw_scores(table.x)).max() < 1e-9  # the model's own prediction agrees
    named = parts.named(0)
    assert named[-1][0] == "base" and {n for n, _ in named[:-1]} == set(table.features)


@pytest.mark.parametrize("kind", ["lambdarank", "linear"])
def test_it_learns_the_signal_not_the_noise(kind):
    table, held = _table(0), _table(1)
    ranker = train(table, RankerParams(kind=kind, rounds=60))
    effects = dict(ranker.effects())
    assert effects["noise"] < effects["signal"] and effects["noise"] < effects["gate"]
    scores = ranker.parts(held.x).scores
    # on unseen groups the relevant rows rank above the others far more often than by chance (0.5)
    pos, neg = scores[held.labels == 1], scores[held.labels == 0]
    assert (pos[:, None] > neg[None, :]).mean() > 0.85


def test_a_linear_part_is_the_weight_times_standard_deviations_from_the_mean():
    x = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 1.0], [6.0, 1.0]])
    table = TrainingTable(("a", "constant"), x, np.array([0, 0, 1, 1]), (4,))
    ranker = train(table, RankerParams(kind="linear"))
    (text,) = ranker.models
    model = json.loads(text)
    assert model["mean"] == [3.0, 1.0] and model["scale"][0] == pytest.approx(np.sqrt(5.0))
    assert model["scale"][1] == 1.0  # a constant feature keeps scale 1, and its part is 0
    parts = ranker.parts(np.array([[3.0, 1.0], [3.0 + np.sqrt(5.0), 1.0]]))
    assert parts.parts[0].tolist() == [0.0, 0.0]  # at the mean: nothing
    assert parts.parts[1, 0] == pytest.approx(model["coef"][0])  # one standard deviation above: the weight


def test_training_twice_gives_the_same_file_and_a_saved_model_loads_back(tmp_path):
    table = _table()
    a, b = train(table, RankerParams(rounds=30)), train(table, RankerParams(rounds=30))
    assert a.to_json() == b.to_json()
    save(a, tmp_path / "r.json")
    back = load(tmp_path / "r.json")
    assert isinstance(back, Ranker) and back.to_json() == a.to_json()
    assert np.array_equal(back.parts(table.x).scores, a.parts(table.x).scores)
    assert "pickle" not in (tmp_path / "r.json").read_text() and (tmp_path / "r.json").read_text().startswith("{")


def test_a_file_that_is_not_a_ranker_is_named(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{\"format\": \"pathlens-ranker/2\", \"kind\": \"forest\", \"features\": [], \"models\": [\"\"], \"about\": {}}")
    with pytest.raises(PathLensError, match=r"bad.json: field 'kind'"):
        load(bad)
    bad.write_text("{\"format\": \"pathlens-ranker/2\", \"kind\": \"linear\", \"features\": [], \"models\": [], \"about\": {}}")
    with pytest.raises(PathLensError, match=r"bad.json: field 'models' must list one model or more"):
        load(bad)
    bad.write_text("\x80 not json")
    with pytest.raises(PathLensError, match="not a saved ranker"):
        load(bad)


def test_bad_tables_and_params_are_named():
    with pytest.raises(PathLensError, match="kind"):
        RankerParams(kind="forest")
    with pytest.raises(PathLensError, match="rounds"):
        RankerParams(rounds=0)
    with pytest.raises(PathLensError, match="finite"):
        TrainingTable(("a",), np.array([[np.nan]]), np.array([1]), (1,))
    with pytest.raises(PathLensError, match="nothing to learn"):
        train(TrainingTable(("a",), np.array([[1.0]]), np.array([0]), (1,)))


@pytest.mark.parametrize("kind", ["lambdarank", "linear"])
def test_a_bag_of_models_is_their_average_and_its_parts_still_sum(kind):
    """Each model of a bag is trained on a share of the clusters, drawn whole: its parts are the models' parts
    averaged, and sum to the bag's score, which is the models' own scores averaged."""
    table = _table(groups=40)
    clustered = TrainingTable(table.features, table.x, table.labels, table.groups,
                              tuple(f"filing{g // 4}" for g in range(40)))  # ten filings of four questions
    params = RankerParams(kind=kind, rounds=30, bag=3, bag_share=0.5)
    bag = train(clustered, params)
    assert len(bag.models) == 3 and len(set(bag.models)) == 3
    parts = bag.parts(table.x)
    assert np.array_equal(parts.scores, parts.base + parts.parts.sum(axis=1))
    assert np.abs(parts.scores - bag.raw_scores(table.x)).max() < 1e-9
    singles = [Ranker(bag.features, kind, (m,)) for m in bag.models]
    assert np.allclose(parts.parts, np.mean([r.parts(table.x).parts for r in singles], axis=0), atol=1e-12)
    assert np.allclose(bag.raw_scores(table.x), np.mean([r.raw_scores(table.x) for r in singles], axis=0), atol=1e-12)
    # each model saw five of the ten filings, every question of each: its rows are whole groups of the table
    from engine.rank.learned import _bags
    for t in _bags(clustered, params):
        assert len(set(t.clusters)) == 5 and t.groups == (12,) * 20
    assert train(clustered, params).to_json() == bag.to_json()  # drawn by the seed: the same file again
    assert sum(share for _, share in bag.effects()) == pytest.approx(1.0)
    with pytest.raises(PathLensError, match="ranker bag"):
        RankerParams(bag=0)
    with pytest.raises(PathLensError, match="4 clusters for 40 groups"):
        TrainingTable(table.features, table.x, table.labels, table.groups, ("a", "b", "c", "d"))
