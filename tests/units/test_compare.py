"""rankframe.analysis.compare: paired tests, intervals and corrections checked against SciPy, exact
enumeration, hand-computed corrections and a coverage simulation."""

from __future__ import annotations

import io
import itertools
import math
import sys
from pathlib import Path

import polars as pl
import pytest

from tests.support import needs

np = needs.load("scipy", "numpy")
stats = needs.load("scipy", "scipy.stats")

from rankframe.analysis import compare as compare_module  # noqa: E402
from rankframe.analysis.compare import COLUMNS, adjust_pvalues, compare  # noqa: E402
from rankframe.errors import InputError, MeasureError  # noqa: E402


def per_query_table(values: dict[str, dict[str, list[float]]], qids: list[str] | None = None
                    ) -> pl.DataFrame:
    """``values[system][measure]`` is a list over the same queries."""
    frames = []
    for name, by_measure in values.items():
        n = len(next(iter(by_measure.values())))
        ids = qids if qids is not None else [f"q{i}" for i in range(n)]
        frames.append(pl.DataFrame({"system": [name] * n, "qid": ids, **by_measure}))
    return pl.concat(frames)


def random_table(rng: np.random.Generator, n: int, shifts: dict[str, float]) -> pl.DataFrame:
    base = rng.uniform(0, 1, n)
    return per_query_table({
        name: {
            "ndcg@10": list(np.clip(base + shift + rng.normal(0, 0.15, n), 0, 1)),
            "map": list(np.clip(base * 0.8 + shift + rng.normal(0, 0.1, n), 0, 1)),
        }
        for name, shift in shifts.items()
    })


def row(cmp: pl.DataFrame, system: str, measure: str) -> dict[str, object]:
    found = cmp.filter((pl.col("system") == system) & (pl.col("measure") == measure))
    assert found.height == 1
    return found.row(0, named=True)


# --------------------------------------------------------------------------- t-test


def test_t_test_matches_scipy_ttest_rel_and_t_intervals() -> None:
    rng = np.random.default_rng(1)
    df = random_table(rng, 37, {"bm25": 0.0, "dense": 0.05, "hybrid": 0.02})
    cmp = compare(df, test="t", correction=None, n_resamples=500)
    assert cmp.columns == list(COLUMNS)
    assert cmp.height == 6
    wide = {s: df.filter(pl.col("system") == s) for s in ("bm25", "dense", "hybrid")}
    for system in ("dense", "hybrid"):
        for measure in ("ndcg@10", "map"):
            a = wide[system][measure].to_numpy()
            b = wide["bm25"][measure].to_numpy()
            r = row(cmp, system, measure)
            expected = stats.ttest_rel(a, b)
            assert r["p_value"] == pytest.approx(expected.pvalue, abs=1e-12, rel=1e-12)
            assert r["p_adjusted"] == r["p_value"]
            d = a - b
            low, high = stats.t.interval(0.95, len(d) - 1, loc=d.mean(), scale=stats.sem(d))
            assert r["delta"] == pytest.approx(d.mean(), abs=1e-14)
            assert r["delta_ci_low"] == pytest.approx(low, abs=1e-12)
            assert r["delta_ci_high"] == pytest.approx(high, abs=1e-12)
            assert r["effect_size"] == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
            assert (r["wins"], r["ties"], r["losses"]) == (
                int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum()))
            low, high = stats.t.interval(0.95, len(a) - 1, loc=a.mean(), scale=stats.sem(a))
            assert (r["ci_low"], r["ci_high"]) == pytest.approx((low, high), abs=1e-12)
            assert r["n_queries"] == 37


def test_baseline_row_is_null_on_differences_and_defaults_to_first_system() -> None:
    rng = np.random.default_rng(2)
    df = random_table(rng, 10, {"zeta": 0.0, "alpha": 0.1})
    cmp = compare(df, n_resamples=200)
    assert cmp["system"].to_list() == ["zeta", "zeta", "alpha", "alpha"]
    assert cmp["measure"].to_list() == ["ndcg@10", "map"] * 2
    assert set(cmp["baseline"]) == {"zeta"}
    base = cmp.filter(pl.col("system") == "zeta")
    for column in ("delta", "delta_ci_low", "delta_boot_ci_high", "p_value", "p_adjusted",
                   "significant", "wins", "ties", "losses", "effect_size"):
        assert base[column].null_count() == 2, column
    assert base["mean"].null_count() == 0
    other = compare(df, baseline="alpha", n_resamples=200)
    assert other.filter(pl.col("system") == "alpha")["delta"].null_count() == 2
    assert row(other, "zeta", "map")["delta"] == pytest.approx(-row(cmp, "alpha", "map")["delta"])


def test_identical_systems_and_constant_differences() -> None:
    same = per_query_table({"a": {"m": [0.1, 0.5, 0.9]}, "b": {"m": [0.1, 0.5, 0.9]}})
    for test in ("t", "randomization", "bootstrap"):
        r = row(compare(same, test=test, n_resamples=300), "b", "m")
        assert r["p_value"] == 1.0
        assert r["significant"] is False
        assert r["effect_size"] is None
        assert (r["wins"], r["ties"], r["losses"]) == (0, 3, 0)
    shifted = per_query_table({"a": {"m": [0.125, 0.5, 0.75]}, "b": {"m": [0.375, 0.75, 1.0]}})
    r = row(compare(shifted, test="t"), "b", "m")
    assert r["p_value"] == 0.0
    assert r["delta_ci_low"] == r["delta_ci_high"] == pytest.approx(0.25)


def test_single_query_gives_null_t_statistics() -> None:
    df = per_query_table({"a": {"m": [0.5]}, "b": {"m": [0.75]}})
    r = row(compare(df, n_resamples=50), "b", "m")
    assert r["n_queries"] == 1
    assert r["delta"] == 0.25
    assert r["p_value"] is None and r["p_adjusted"] is None and r["significant"] is None
    assert r["delta_ci_low"] is None and r["ci_low"] is None and r["effect_size"] is None


# --------------------------------------------------------------------------- randomization


def exact_sign_flip_p(d: np.ndarray) -> float:
    """All 2^n sign vectors, one at a time."""
    observed = abs(sum(d))
    hits = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(d)):
        total = sum(s * v for s, v in zip(signs, d, strict=True))
        hits += abs(total) >= observed - 1e-9
    return hits / 2 ** len(d)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_sampled_randomization_matches_exact_enumeration(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 12
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(0.08, 0.2, n), 0, 1)
    df = per_query_table({"a": {"m": list(a)}, "b": {"m": list(b)}})
    exact = exact_sign_flip_p(b - a)
    resamples = 4000  # < 2^12, so compare samples
    sampled = row(compare(df, test="randomization", n_resamples=resamples, seed=seed), "b", "m")
    se = math.sqrt(max(exact * (1 - exact), 1e-4) / resamples)
    assert sampled["p_value"] == pytest.approx(exact, abs=5 * se + 1 / resamples)


def test_randomization_enumerates_exactly_when_2_to_the_n_fits(monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    rng = np.random.default_rng(6)
    n = 9
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(0.1, 0.2, n), 0, 1)
    c = np.round(a * 4) / 4  # ties with a on some queries, differences repeat
    df = per_query_table({"a": {"m": list(a)}, "b": {"m": list(b)}, "c": {"m": list(c)}})
    monkeypatch.setattr(compare_module, "_CHUNK_ELEMENTS", 50)  # many chunks
    cmp = compare(df, test="randomization", n_resamples=2 ** n, seed=None, correction=None)
    assert row(cmp, "b", "m")["p_value"] == pytest.approx(exact_sign_flip_p(b - a), abs=1e-15)
    assert row(cmp, "c", "m")["p_value"] == pytest.approx(exact_sign_flip_p(c - a), abs=1e-15)


def test_randomization_detects_a_real_difference() -> None:
    rng = np.random.default_rng(7)
    df = random_table(rng, 60, {"a": 0.0, "b": 0.12})
    r = row(compare(df, test="randomization", n_resamples=2000), "b", "ndcg@10")
    assert r["p_value"] == pytest.approx(1 / 2001)
    assert r["significant"] is True


# --------------------------------------------------------------------------- bootstrap


def test_bootstrap_intervals_cover_the_true_mean_about_95_percent() -> None:
    """200 samples of 40 queries from normals with known means; the percentile bootstrap
    intervals (and the t intervals) must cover the truth about 95% of the time. The
    binomial standard error of the coverage is 1.5 points; the band is over 4 of them."""
    rng = np.random.default_rng(8)
    trials, n = 200, 40
    covered = {"boot": 0, "t": 0, "delta_boot": 0}
    for trial in range(trials):
        a = rng.normal(0.4, 0.1, n)
        b = a + rng.normal(0.03, 0.05, n)
        df = per_query_table({"a": {"m": list(a)}, "b": {"m": list(b)}})
        cmp = compare(df, test="bootstrap", n_resamples=1000, seed=trial)
        ra, rb = row(cmp, "a", "m"), row(cmp, "b", "m")
        covered["boot"] += ra["boot_ci_low"] <= 0.4 <= ra["boot_ci_high"]
        covered["t"] += ra["ci_low"] <= 0.4 <= ra["ci_high"]
        covered["delta_boot"] += rb["delta_boot_ci_low"] <= 0.03 <= rb["delta_boot_ci_high"]
    for name, hits in covered.items():
        assert 0.88 <= hits / trials <= 0.995, (name, hits)


def test_bootstrap_is_seeded_and_percentile_intervals_bracket_the_mean() -> None:
    rng = np.random.default_rng(9)
    df = random_table(rng, 25, {"a": 0.0, "b": 0.03})
    one = compare(df, test="bootstrap", n_resamples=800, seed=11)
    assert one.equals(compare(df, test="bootstrap", n_resamples=800, seed=11))
    other = compare(df, test="bootstrap", n_resamples=800, seed=12)
    assert not one["boot_ci_low"].equals(other["boot_ci_low"])
    assert (one["boot_ci_low"] <= one["mean"]).all()
    assert (one["mean"] <= one["boot_ci_high"]).all()
    b = one.filter(pl.col("system") == "b")
    assert (b["delta_boot_ci_low"] <= b["delta"]).all()
    assert (b["p_value"] >= 1 / 801).all()


def test_bootstrap_test_p_value_definition() -> None:
    """Shifted resampled mean differences reach |delta| rarely for a clear effect and
    often for none."""
    rng = np.random.default_rng(10)
    n = 50
    a = rng.uniform(0.2, 0.8, n)
    df = per_query_table({
        "a": {"m": list(a)},
        "clear": {"m": list(a + 0.1 + rng.normal(0, 0.05, n))},
        "none": {"m": list(a + rng.normal(0, 0.05, n) - 0.0)},
    })
    cmp = compare(df, test="bootstrap", n_resamples=3000, correction=None)
    assert row(cmp, "clear", "m")["p_value"] == pytest.approx(1 / 3001)
    p_t = row(compare(df, test="t"), "none", "m")["p_value"]
    assert row(cmp, "none", "m")["p_value"] == pytest.approx(p_t, abs=0.05)


# --------------------------------------------------------------------------- corrections


def test_adjust_pvalues_by_hand() -> None:
    p = [0.01, 0.04, 0.03, 0.005]
    # Holm: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 -> 0.02, 0.03, 0.06, 0.04,
    # then running maximum -> 0.02, 0.03, 0.06, 0.06.
    assert adjust_pvalues(p, "holm") == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert adjust_pvalues(p, "bonferroni") == pytest.approx([0.04, 0.16, 0.12, 0.02])
    assert adjust_pvalues(p, None) == p
    assert adjust_pvalues([0.3, 0.6], "bonferroni") == [0.6, 1.0]
    assert adjust_pvalues([0.6, 0.3], "holm") == pytest.approx([0.6, 0.6])
    assert adjust_pvalues([], "holm") == []
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        adjust_pvalues([1.5], "holm")
    with pytest.raises(ValueError, match="correction"):
        adjust_pvalues([0.1], "fdr")  # type: ignore[arg-type]


@pytest.mark.parametrize("correction", ["holm", "bonferroni"])
def test_correction_family_is_every_system_and_measure_against_the_baseline(
    correction: str,
) -> None:
    rng = np.random.default_rng(12)
    df = random_table(rng, 30, {"a": 0.0, "b": 0.04, "c": 0.01})
    cmp = compare(df, test="t", correction=correction, alpha=0.05)  # type: ignore[arg-type]
    tested = cmp.filter(pl.col("p_value").is_not_null())
    assert tested.height == 4
    raw = tested["p_value"].to_list()
    if correction == "bonferroni":
        expected = [min(1.0, 4 * p) for p in raw]
    else:
        order = sorted(range(4), key=lambda i: raw[i])
        expected = [0.0] * 4
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (4 - rank) * raw[i]))
            expected[i] = running
    assert tested["p_adjusted"].to_list() == pytest.approx(expected, rel=1e-12)
    assert tested["significant"].to_list() == [p <= 0.05 for p in expected]


# --------------------------------------------------------------------------- missing queries


def ragged() -> pl.DataFrame:
    return pl.DataFrame({
        "system": ["a", "a", "a", "a", "b", "b", "b", "c", "c", "c", "c"],
        "qid": ["q1", "q2", "q3", "q4", "q1", "q2", "q4", "q1", "q2", "q3", "q4"],
        "m": [0.5, 0.25, 1.0, 0.0, 0.75, 0.5, 0.25, 0.5, None, 0.5, 0.5],
    })


def test_missing_queries_error_names_system_and_queries() -> None:
    with pytest.raises(InputError) as err:
        compare(ragged())
    message = str(err.value)
    assert "system 'b' lacks 1 query(ies): 'q3'" in message
    assert "system 'c' lacks 1 query(ies): 'q2'" in message
    assert "'a'" not in message.split("measure 'm'")[1].split("system 'b'")[0]
    assert "missing='intersect'" in message


def test_missing_intersect_keeps_queries_every_system_has() -> None:
    cmp = compare(ragged(), missing="intersect", correction=None)
    assert set(cmp["n_queries"]) == {2}
    # q1 and q4 only: a = 0.5, 0.0; b = 0.75, 0.25; c = 0.5, 0.5
    assert row(cmp, "a", "m")["mean"] == pytest.approx(0.25)
    assert row(cmp, "b", "m")["delta"] == pytest.approx(0.25)
    assert row(cmp, "c", "m")["mean"] == pytest.approx(0.5)
    assert row(cmp, "c", "m")["wins"] == 1 and row(cmp, "c", "m")["ties"] == 1


def test_missing_zero_scores_absent_queries_zero() -> None:
    cmp = compare(ragged(), missing="zero", correction=None)
    assert set(cmp["n_queries"]) == {4}
    assert row(cmp, "b", "m")["mean"] == pytest.approx(1.5 / 4)
    assert row(cmp, "c", "m")["mean"] == pytest.approx(1.5 / 4)
    assert row(cmp, "b", "m")["losses"] == 1


def test_missing_intersect_with_nothing_left() -> None:
    df = pl.DataFrame({"system": ["a", "b"], "qid": ["q1", "q2"], "m": [0.1, 0.2]})
    with pytest.raises(InputError, match="no query has a value of measure 'm'"):
        compare(df, missing="intersect")


def test_integer_query_ids_and_integer_measures() -> None:
    df = pl.DataFrame({"system": ["x"] * 3 + ["y"] * 3, "qid": [3, 1, 2, 1, 2, 3],
                       "num_rel_ret": [3, 1, 2, 2, 2, 4]})
    r = row(compare(df, n_resamples=100), "y", "num_rel_ret")
    assert r["delta"] == pytest.approx(2 / 3)
    assert (r["wins"], r["ties"], r["losses"]) == (2, 1, 0)


# --------------------------------------------------------------------------- bad input


def test_bad_input_errors() -> None:
    df = per_query_table({"a": {"m": [0.1, 0.2]}, "b": {"m": [0.3, 0.4]}})
    with pytest.raises(MeasureError, match="measure column 'ndcg@10' not found"):
        compare(df, measures=["ndcg@10"])
    with pytest.raises(InputError, match=r"at least two systems.*found 'a'"):
        compare(df.filter(pl.col("system") == "a"))
    with pytest.raises(InputError, match="at least two systems"):
        compare(df.clear())
    labelled = df.with_columns(pl.lit("x").alias("label"))
    with pytest.raises(MeasureError, match="'label' has type String, not numeric"):
        compare(labelled, measures=["m", "label"])
    assert compare(labelled, n_resamples=10)["measure"].unique().to_list() == ["m"]
    with pytest.raises(MeasureError, match="no numeric measure column"):
        compare(df.select("system", "qid"))
    with pytest.raises(InputError, match="baseline 'c' is not a system"):
        compare(df, baseline="c")
    with pytest.raises(InputError, match="query column 'query' not found"):
        compare(df, query="query")
    with pytest.raises(InputError, match=r"duplicate .* system 'a' query 'q0'"):
        compare(pl.concat([df, df.head(1)]))
    with pytest.raises(ValueError, match="test must be one of"):
        compare(df, test="wilcoxon")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="missing must be one of"):
        compare(df, missing="drop")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="alpha"):
        compare(df, alpha=0)
    with pytest.raises(ValueError, match="n_resamples"):
        compare(df, n_resamples=0)
    with pytest.raises(TypeError, match="polars DataFrame"):
        compare(df.to_dicts())  # type: ignore[arg-type]
    with pytest.raises(MeasureError, match="twice"):
        compare(df, measures=["m", "m"])


# --------------------------------------------------------------------------- progress


def test_progress_bar_on_request(capsys: pytest.CaptureFixture[str]) -> None:
    df = random_table(np.random.default_rng(13), 20, {"a": 0.0, "b": 0.1})
    quiet = compare(df, test="randomization", n_resamples=3000, progress=False)
    assert capsys.readouterr().err == ""
    shown = compare(df, test="randomization", n_resamples=3000, progress=True)
    assert "compare (randomization)" in capsys.readouterr().err
    assert quiet.equals(shown)


def test_plain_progress_bar_without_tqdm(capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm now raises ImportError
    monkeypatch.setattr(compare_module, "_CHUNK_ELEMENTS", 200)
    df = random_table(np.random.default_rng(14), 20, {"a": 0.0, "b": 0.1})
    compare(df, test="bootstrap", n_resamples=500, progress=True)
    err = capsys.readouterr().err
    assert "compare (bootstrap) [" in err
    assert err.rstrip().endswith("100%")


# --------------------------------------------------------------------------- command line


def write_collection(directory: Path) -> dict[str, Path]:
    """Qrels for 12 queries (d1..d3 relevant of d1..d8) and three runs of set quality:
    'good' ranks the relevant documents first, 'mid' interleaves, 'bad' puts them last."""
    qrels = [f"{q} 0 d{d} {int(d <= 3)}" for q in range(1, 13) for d in range(1, 9)]
    (directory / "qrels.txt").write_text("\n".join(qrels) + "\n")
    orders = {
        "good": [1, 2, 3, 4, 5, 6, 7, 8],
        "mid": [4, 1, 5, 2, 6, 3, 7, 8],
        "bad": [4, 5, 6, 7, 8, 1, 2, 3],
    }
    paths = {"qrels": directory / "qrels.txt"}
    for tag, order in orders.items():
        lines = []
        for q in range(1, 13):
            docs = order if q % 4 else order[::-1]  # every fourth query reversed
            lines += [f"{q} Q0 d{d} {r} {20 - r} {tag}" for r, d in enumerate(docs, 1)]
        paths[tag] = directory / f"{tag}.run"
        paths[tag].write_text("\n".join(lines) + "\n")
    return paths


def test_cli_compare_text_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rankframe.cli import main

    paths = write_collection(tmp_path)
    args = [str(paths[k]) for k in ("qrels", "mid", "good", "bad")]
    assert main(["compare", *args, "-m", "P@3", "-m", "map", "--test", "t"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["system", "P@3", "map"]
    assert lines[1].startswith("(a)  mid ")
    assert "^a" in lines[2] and "^" not in lines[1] + lines[3]  # only good beats mid
    assert "Paired t-test, Holm correction, alpha 0.05, 12 queries." in out

    assert main(["compare", *args, "-m", "P@3", "--format", "csv",
                 "--baseline", str(paths["good"]), "--correction", "none"]) == 0
    table = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert table.columns == list(COLUMNS)
    assert table["system"].to_list() == ["mid", "good", "bad"]
    assert set(table["baseline"]) == {"good"}
    # P@3 per query: good 1 (0 when reversed), mid 1/3 (1/3), bad 0 (1); 3 of 12 reversed
    bad = table.filter(pl.col("system") == "bad").row(0, named=True)
    assert bad["mean"] == pytest.approx(3 / 12)
    assert bad["delta"] == pytest.approx(3 / 12 - 9 / 12)
    assert (bad["wins"], bad["ties"], bad["losses"]) == (3, 0, 9)
    assert bad["p_adjusted"] == bad["p_value"]


def test_cli_compare_markdown_latex_and_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rankframe.cli import main

    paths = write_collection(tmp_path)
    qrels, good, bad = str(paths["qrels"]), str(paths["good"]), str(paths["bad"])
    assert main(["compare", qrels, good, bad, "--format", "markdown", "--test",
                 "randomization", "--resamples", "500", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("|  | system | ndcg@10 | map |")
    assert main(["compare", qrels, good, bad, "--format", "latex", "--digits", "2"]) == 0
    assert "\\begin{tabular}{llrr}" in capsys.readouterr().out

    assert main(["compare", qrels, good, good]) == 1
    assert "distinct names" in capsys.readouterr().err
    assert main(["compare", qrels, good]) == 1
    assert "at least two runs" in capsys.readouterr().err
    assert main(["compare", qrels, good, bad, "--alpha", "1.5"]) == 1
    assert "alpha must be a number in (0, 1)" in capsys.readouterr().err
    assert main(["compare", qrels, good, bad, "--baseline", "nope"]) == 1
    assert "--baseline nope: not a run" in capsys.readouterr().err

    partial = tmp_path / "partial.run"
    partial.write_text("\n".join(paths["bad"].read_text().splitlines()[8:]) + "\n")
    assert main(["compare", qrels, good, str(partial), "-m", "map"]) == 1
    err = capsys.readouterr().err
    assert "system 'bad' lacks 1 query(ies): '1'" in err
    assert main(["compare", qrels, good, str(partial), "-m", "map", "-c"]) == 0
    assert "12 queries" in capsys.readouterr().out
    assert main(["compare", qrels, good, str(partial), "-m", "map",
                 "--missing", "intersect"]) == 0
    assert "11 queries" in capsys.readouterr().out


def test_cli_compare_add_parser_standalone() -> None:
    import argparse

    from rankframe.cli import compare as cli_compare

    parser = argparse.ArgumentParser(prog="x")
    cli_compare.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["compare", "q", "r1", "r2", "-m", "map", "--test", "bootstrap"])
    assert args.handler is cli_compare.run
    assert (args.qrels, args.runs, args.measures, args.test) == ("q", ["r1", "r2"], ["map"],
                                                                 "bootstrap")
    assert (args.correction, args.format, args.missing, args.progress) == (
        "holm", "text", "error", None)


# --------------------------------------------------------------------------- runs


def test_evaluate_runs_from_files_names_systems_by_tag(tmp_path: Path) -> None:
    import rankframe as rf

    paths = write_collection(tmp_path)
    runs = [paths[k] for k in ("mid", "good", "bad")]
    table = rf.evaluate_runs(runs, paths["qrels"], ["P@3", "map"])
    assert table.columns == ["system", "qid", "P@3", "map"]
    assert table["system"].unique(maintain_order=True).to_list() == ["mid", "good", "bad"]
    qrels = rf.read_qrels(paths["qrels"])
    for name, path in zip(["mid", "good", "bad"], runs, strict=True):
        expected = rf.evaluate_run(rf.read_run(path), qrels, ["P@3", "map"])
        got = table.filter(pl.col("system") == name).drop("system")
        assert got.equals(expected), name


def test_evaluate_runs_from_frames_and_query_choice(tmp_path: Path) -> None:
    import rankframe as rf

    paths = write_collection(tmp_path)
    qrels = rf.read_qrels(paths["qrels"])
    partial = rf.read_run(paths["bad"]).filter(pl.col("qid") != "1")
    extra = pl.DataFrame({"qid": ["99"], "docid": ["d1"], "score": [1.0]})  # no qrels
    runs = {"full": rf.read_run(paths["good"]), "partial": pl.concat(
        [partial.select("qid", "docid", "score"), extra])}
    table = rf.evaluate_runs(runs, qrels, "map", system="run", all_queries=False)
    assert table.columns == ["run", "qid", "map"]
    counts = dict(table.group_by("run").len().iter_rows())
    assert counts == {"full": 12, "partial": 11}  # trec_eval: the queries each retrieved for
    complete = rf.evaluate_runs(runs, qrels, "map")  # the default, as evaluate_run: -c
    assert complete.filter(pl.col("system") == "partial").height == 12  # every qrels query
    assert complete.filter((pl.col("system") == "partial") & (pl.col("qid") == "1"))["map"][0] == 0
    assert rf.unjudged_run_queries(runs["partial"], qrels)["qid"].to_list() == ["99"]


def test_read_runs_names_and_errors(tmp_path: Path) -> None:
    import rankframe as rf

    paths = write_collection(tmp_path)
    same_tag = tmp_path / "good2.run"
    same_tag.write_text(paths["good"].read_text())
    runs = rf.read_runs([paths["good"], same_tag, paths["bad"]])
    assert list(runs) == ["good.run", "good2.run", "bad"]  # shared tags: file names
    with pytest.raises(InputError, match="distinct names"):
        rf.read_runs([paths["good"], paths["good"]])
    unjudged = tmp_path / "other.run"
    unjudged.write_text("77 Q0 d1 1 1.0 other\n")
    with pytest.raises(InputError, match="no runs"):
        rf.evaluate_runs({}, paths["qrels"], "map")
    with pytest.raises(rf.RankframeError, match="system 'other': no queries with both"):
        rf.evaluate_runs([paths["good"], unjudged], paths["qrels"], "map", all_queries=False)


def test_notebook_compare_equals_the_command_line(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import rankframe as rf
    from rankframe.cli import main

    paths = write_collection(tmp_path)
    runs = [paths[k] for k in ("mid", "good", "bad")]
    result = rf.compare(rf.evaluate_runs(runs, paths["qrels"], ["P@3", "map"]),
                        test="randomization", n_resamples=200, seed=3)
    assert main(["compare", str(paths["qrels"]), *map(str, runs), "-m", "P@3", "-m", "map",
                 "--test", "randomization", "--resamples", "200", "--seed", "3",
                 "--format", "csv"]) == 0
    cli = pl.read_csv(io.StringIO(capsys.readouterr().out))
    assert cli.equals(pl.read_csv(io.StringIO(result.write_csv())))


def test_compare_takes_runs_and_qrels_directly(tmp_path: Path) -> None:
    import rankframe as rf

    paths = write_collection(tmp_path)
    runs = [paths[k] for k in ("mid", "good", "bad")]
    options = {"test": "randomization", "n_resamples": 200, "seed": 3}
    expected = rf.compare(rf.evaluate_runs(runs, paths["qrels"], ["P@3", "map"]), **options)
    from_paths = rf.compare(runs, qrels=paths["qrels"], measures=["P@3", "map"], **options)
    assert from_paths.equals(expected)
    frames = rf.read_runs(runs)
    qrels = rf.read_qrels(paths["qrels"])
    from_frames = rf.compare(frames, qrels=qrels, measures=["P@3", "map"], **options)
    assert from_frames.equals(expected)
    # trec_eval names evaluate under their own labels and are all compared
    named = rf.compare([str(p) for p in runs], qrels=str(paths["qrels"]), measures="P_3")
    assert named["measure"].unique().to_list() == rf.evaluate_runs(
        runs, paths["qrels"], "P_3").columns[2:]
    assert named["system"].to_list() == ["mid", "good", "bad"]


def test_compare_rejects_ambiguous_runs_and_qrels(tmp_path: Path) -> None:
    import rankframe as rf

    paths = write_collection(tmp_path)
    runs = [paths["good"], paths["bad"]]
    per_query = rf.evaluate_runs(runs, paths["qrels"], ["map"])
    with pytest.raises(InputError, match="qrels is given with a per-query table"):
        rf.compare(per_query, qrels=paths["qrels"])
    with pytest.raises(InputError, match="runs need qrels"):
        rf.compare(runs, measures=["map"])
    with pytest.raises(InputError, match="runs need measures"):
        rf.compare(runs, qrels=paths["qrels"])
    with pytest.raises(InputError, match="runs need measures"):
        rf.compare(runs, qrels=paths["qrels"], measures=[])
    with pytest.raises(TypeError, match="run frames need names"):
        rf.compare(list(rf.read_runs(runs).values()), qrels=paths["qrels"], measures="map")
    with pytest.raises(TypeError, match="single path"):
        rf.compare(str(paths["good"]), qrels=paths["qrels"], measures="map")
    with pytest.raises(TypeError, match="maps to int"):
        rf.compare({"a": 1}, qrels=paths["qrels"], measures="map")  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="qrels must be a polars DataFrame or a file path"):
        rf.compare(runs, qrels=3, measures="map")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="got int"):
        rf.compare(3, qrels=paths["qrels"], measures="map")  # type: ignore[arg-type]
