"""A paper-lab cell's numbers repeat: the reference cell (1-1-1-0, T = 32, seed 0, 150 steps) trained twice in one
process as a grid cell trains gives the same metrics to the last digit, and the shipped record's whenever it was
made under the same fingerprint (scan form, threads, torch, CPU, code)."""
import ast

import pytest
import torch

from lcsm_core.training.numerics import FIELDS, _without_docstrings, differences, repeatable
from lcsm_serving.paper_lab.reproduce import (
    REFERENCE_STEPS,
    cell_record,
    load_reference,
    metrics_of,
    reference_cell,
    why_not_comparable,
)


@pytest.fixture(scope="module")
def fresh() -> dict:
    threads = torch.get_num_threads()
    record = cell_record(reference_cell())
    assert torch.get_num_threads() == threads and not torch.are_deterministic_algorithms_enabled()   # given back
    return record


def test_a_cell_run_twice_in_one_process_gives_the_same_metrics_to_the_last_digit(fresh):
    again = cell_record(reference_cell())
    assert metrics_of(again) == metrics_of(fresh)
    assert again["numerics"] == fresh["numerics"]
    assert fresh["steps"] == REFERENCE_STEPS and len(fresh["loss"]) == REFERENCE_STEPS and len(fresh["test_acc"]) >= 4


def test_a_cell_records_what_its_numbers_depend_on(fresh):
    numerics = fresh["numerics"]
    assert set(numerics) == set(FIELDS)
    assert numerics["threads"] == 1 and numerics["deterministic"] is True and numerics["form"] == "chunked"
    assert numerics["torch"] == torch.__version__ and numerics["device"] == "cpu"


def test_the_cell_gives_its_shipped_numbers_when_it_runs_as_they_were_made(fresh):
    shipped = load_reference()
    assert shipped is not None, "no shipped reference: python -m lcsm_serving.paper_lab --reference writes it"
    why = why_not_comparable(fresh, shipped)
    if why:
        pytest.skip(f"the shipped reference was made under another fingerprint ({'; '.join(why)}): its numbers may "
                    "differ; python -m lcsm_serving.paper_lab --reference makes it again here")
    assert metrics_of(fresh) == metrics_of(shipped)


def test_a_record_says_why_it_may_differ_from_another():
    ours = dict(form="chunked", threads=1, torch="2.13.0+cpu", cpu="AVX2", device="cpu", deterministic=True,
                code="abc")
    assert differences(ours, dict(ours)) == []
    assert differences(ours, dict(ours, threads=2, form="recurrent")) == ["form 'chunked' vs 'recurrent'",
                                                                         "threads 1 vs 2"]
    assert differences(ours, None) == ["no fingerprint recorded"]


def test_the_code_version_reads_code_not_docstrings_or_comments():
    def dumped(text):
        return ast.dump(_without_docstrings(ast.parse(text)))
    plain = "def f(x):\n    return x + 1\n"
    assert dumped(plain) == dumped('"""A module."""\ndef f(x):\n    """Adds one."""\n    # why\n    return x + 1\n')
    assert dumped(plain) != dumped("def f(x):\n    return x + 2\n")


def test_repeatable_gives_the_settings_back_even_on_an_error():
    threads = torch.get_num_threads()
    with pytest.raises(RuntimeError), repeatable(threads=1):
        assert torch.get_num_threads() == 1 and torch.are_deterministic_algorithms_enabled()
        raise RuntimeError("a failed cell")
    assert torch.get_num_threads() == threads and not torch.are_deterministic_algorithms_enabled()
