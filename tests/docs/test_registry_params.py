"""Parameters described once (``Param.desc``): the builders' ``help()``, the API reference,
the ``.sql`` headers and the measure reference all say what the registry says, and the
builders' sources do not say it again. The Polars builders' list is the registry's."""

from __future__ import annotations

import ast
import importlib
import inspect
import re

import pytest

import rankframe
import rankframe.metrics
from docsgen import measures, params
from rankframe.docsections import complete_parameters, wrap
from rankframe.registry import GAIN, GAINS, IDEAL, METRICS, THRESHOLD, K, Metric, document
from tests.support import REPO, needs


def _builder(name: str) -> object:
    return getattr(rankframe, name)


def _own_doc(name: str) -> str:
    """The docstring as written in the builder's source."""
    return inspect.getdoc(inspect.unwrap(_builder(name))) or ""  # type: ignore[arg-type]


def _section(doc: str) -> str:
    match = re.search(r"^Parameters\n-+\n(.*?)(?=^\S[^\n]*\n-{3,}\n|\Z)", doc,
                      flags=re.MULTILINE | re.DOTALL)
    return match[1] if match else ""


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("name", sorted(METRICS))
def test_help_documents_every_parameter_in_signature_order(name: str) -> None:
    builder = _builder(name)
    doc = inspect.getdoc(builder) or ""
    heads = [line.split(" : ")[0] for line in _section(doc).splitlines()
             if line and not line[0].isspace()]
    documented = [n.strip() for head in heads for n in head.split(",")]
    assert documented == list(inspect.signature(builder).parameters)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(METRICS))
def test_the_registry_descriptions_reach_help(name: str) -> None:
    """Where a builder does not describe a parameter itself, help() shows the registry's
    description of it."""
    metric = METRICS[name]
    own = _flat(_section(_own_doc(name)))
    shown = _flat(_section(inspect.getdoc(_builder(name)) or ""))
    for names, desc in metric.described().items():
        if f"{', '.join(names)} " not in own:
            assert _flat(desc) in shown, (name, names)


@pytest.mark.parametrize("name", sorted(METRICS))
def test_no_builder_source_repeats_a_shared_description(name: str) -> None:
    own = _flat(_section(_own_doc(name)))
    for metric in METRICS.values():
        for desc in metric.described().values():
            assert _flat(desc) not in own, (name, desc[:40])


def test_every_parameter_is_described_once_in_the_registry() -> None:
    for metric in METRICS.values():
        for param in metric.params:
            assert param.desc.strip(), f"{metric.name}: {param.name} has no description"
    assert "``rank <= k``" in K.desc and "trec_eval ``-l``" in THRESHOLD.desc
    # The same parameter (name, kind, default, choices) reads the same wherever it is taken.
    descs: dict[object, set[str]] = {}
    for metric in METRICS.values():
        for param in metric.params:
            descs.setdefault(param, set()).add(param.desc)
    assert all(len(found) == 1 for found in descs.values()), descs


def test_description_is_not_part_of_a_parameters_identity() -> None:
    assert METRICS["ndcg"].params == (K, GAIN, IDEAL, GAINS)
    assert type(GAIN)(GAIN.name, GAIN.kind, GAIN.default, GAIN.choices, desc="other") == GAIN


def test_complete_parameters_orders_keeps_own_entries_and_groups() -> None:
    doc = ("Summary.\n\n    Parameters\n    ----------\n    b\n        Own b.\n\n"
           "    Returns\n    -------\n    x\n        Value.\n    ")
    described = {("a",): "Shared a.", ("b",): "Shared b.", ("c", "d"): "Shared c and d."}
    out = complete_parameters(doc, ["a", "b", "c", "d"], described)
    assert out == ("Summary.\n\nParameters\n----------\na\n    Shared a.\nb\n    Own b.\n"
                   "c, d\n    Shared c and d.\n\nReturns\n-------\nx\n    Value.")
    assert complete_parameters(out, ["a", "b", "c", "d"], {}) is out  # complete: unchanged
    # No section yet: it goes at the end; a name documented nowhere is left out.
    assert complete_parameters("Summary.", ["a", "z"], described) == (
        "Summary.\n\nParameters\n----------\na\n    Shared a.\n")


def test_wrap_keeps_formulas_whole() -> None:
    lines = wrap("gains are g = 2^rel - 1 for each grade", 19, "", "")
    assert "g = 2^rel - 1" in "\n".join(lines) and all(len(line) <= 19 for line in lines[1:])


def test_document_completes_a_builder_doc_from_its_metric() -> None:
    metric = Metric("toy", (K, THRESHOLD), family="counts")
    doc = document(metric, "Toy.\n\nParameters\n----------\nrel\n    Own grades.\n",
                   ["rel", "k", "rank", "threshold"])
    assert doc.index("rel\n    Own grades.") < doc.index("k\n    Cutoff") < doc.index(
        "rank\n    Rank column") < doc.index("threshold\n    Relevance level")


@needs.mark("docs")
def test_the_api_reference_reads_the_same_parameters_as_help() -> None:
    """griffe reads the sources statically; the extension completes what help() shows."""
    import griffe

    module = griffe.load("rankframe.faces.polars.gains", search_paths=[str(REPO)])
    ndcg = module["ndcg"]
    params.complete_docstring(ndcg)
    assert isinstance(ndcg, griffe.Function) and ndcg.docstring is not None
    shown = _section(inspect.getdoc(rankframe.ndcg) or "")
    assert _section(ndcg.docstring.value) == shown
    assert _flat(IDEAL.desc) in _flat(shown)


@pytest.mark.parametrize(("module", "name"), [
    pytest.param("rankframe.ibis", "judge", marks=needs.mark("docs", "ibis")),
    pytest.param("rankframe.ibis", "to_sql", marks=needs.mark("docs", "ibis")),
    pytest.param("rankframe.analysis.report", "to_latex", marks=needs.mark("docs")),
    pytest.param("rankframe.analysis.report", "system_letters", marks=needs.mark("docs")),
])
def test_functions_described_by_a_module_mapping_read_the_same_in_both(module: str,
                                                                       name: str) -> None:
    """``@described_by(MAPPING)``: help() and the API reference show one Parameters
    section, every parameter in signature order, the shared ones from the mapping."""
    import griffe

    loaded = griffe.load(module, search_paths=[str(REPO)])
    static = loaded[name]
    params.complete_docstring(static)
    function = getattr(importlib.import_module(module), name)
    shown = inspect.getdoc(function) or ""
    assert isinstance(static, griffe.Function) and static.docstring is not None
    assert _section(static.docstring.value).rstrip() == _section(shown).rstrip()
    heads = [line.split(" : ")[0] for line in _section(shown).splitlines()
             if line and not line[0].isspace()]
    documented = [n.strip() for head in heads for n in head.split(",")]
    assert documented == list(inspect.signature(function).parameters)


def test_a_name_in_several_entries_takes_the_largest_that_fits() -> None:
    described = {("query",): "One column.", ("rel", "rank"): "Grade and rank.",
                 ("query", "doc", "rel"): "Three columns."}
    judge = complete_parameters("J.", ["query", "doc", "rel"], described)
    assert judge.endswith("Parameters\n----------\nquery, doc, rel\n    Three columns.\n")
    table = complete_parameters("T.", ["query", "rel", "rank"], described)
    assert "query\n    One column.\nrel, rank\n    Grade and rank." in table


def test_sql_headers_hold_the_registry_parameter_lines() -> None:
    assert params.stale() == [], "run: python -m docsgen.params --write"
    text = (REPO / "sql" / "rf_ndcg.sql").read_text(encoding="utf-8")
    block = params.sql_header_block("ndcg")
    assert "\n".join(block) in text and block[0] == params.HEADING
    assert any(line.startswith("--     gain: 'linear': g = rel") for line in block)
    assert params.sql_header_block("kendall_tau") == []


def test_a_changed_description_makes_a_header_stale() -> None:
    text = (REPO / "sql" / "rf_precision.sql").read_text(encoding="utf-8")
    edited = text.replace("--     k: Cutoff", "--     k: A cutoff")
    assert edited != text and params.rewritten(edited, "precision") == text
    body = text[text.index("\n\n"):]
    assert params.rewritten(text, "precision").endswith(body)  # below the header: untouched


def test_sql_text_reads_python_values_as_sql() -> None:
    assert params.sql_text('``None`` or ``"min"``; ``k=None``; ``True``; ``{grade: gain}``; '
                           ':func:`rankframe.evaluate`') == (
        "NULL or 'min'; k := NULL; true; MAP {grade: gain}; rankframe.evaluate")


def test_the_measure_reference_describes_each_parameter() -> None:
    page = measures.page()
    ndcg = page[page.index("\n## ndcg\n"):page.index("\n## ndcg_rel\n")]
    ideal = "    - `ideal` (choice, one of `all`, `retrieved`): `'all'`. `\"all\"`: the ideal"
    assert ideal in ndcg
    assert "- **Parameters**: none." in page[page.index("\n## kendall_tau\n"):]


def test_the_builders_list_is_the_registry() -> None:
    metrics = rankframe.metrics
    assert metrics.__all__ == sorted(METRICS)
    for name, metric in METRICS.items():
        builder = getattr(metrics, name)
        assert builder.__module__.rsplit(".", 1)[1] in (metric.family, "correlation", "tied")
    # The static imports (type checkers, griffe) name the same builders in the same modules.
    tree = ast.parse((REPO / "rankframe" / "faces" / "polars" / "__init__.py").read_text("utf-8"))
    imported = {alias.name: node.module for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) and node.module
                and node.module.startswith("rankframe.faces.polars.") for alias in node.names}
    assert imported == {name: getattr(metrics, name).__module__ for name in METRICS}


def test_header_text_after_the_block_is_kept() -> None:
    text = ("-- rf_precision(rel, rank, k := NULL) -> DOUBLE\n"
            "--   Contract: docs/semantics.md#precision.\n"
            "--     (1 - p) * sum over the rows: a formula indented like an entry\n\nSELECT 1;\n")
    once = params.rewritten(text, "precision")
    assert params.rewritten(once, "precision") == once
    assert once.endswith("--     (1 - p) * sum over the rows: a formula indented like an entry"
                         "\n\nSELECT 1;\n")
    assert "\n".join(params.sql_header_block("precision")) in once
