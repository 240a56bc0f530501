"""Properties of the synthetic task generators (hypothesis over sizes and seeds)."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from lcsm_core.tasks import IGNORE, MQARConfig, mqar, selective_copying


@st.composite
def mqar_sizes(draw):
    pairs = draw(st.integers(1, 8))
    seq_len = 2 * draw(st.integers(2 * pairs, 2 * pairs + 40))
    vocab = 2 * draw(st.integers(pairs + 1, pairs + 40))
    return vocab, seq_len, pairs


@settings(max_examples=40, deadline=None)
@given(mqar_sizes(), st.integers(0, 2**32 - 1), st.booleans())
def test_mqar_every_label_is_the_value_of_its_queried_key(sizes, seed, noise):
    vocab, seq_len, pairs = sizes
    inputs, labels = mqar(vocab, seq_len, pairs, 8, seed, random_non_queries=noise)
    assert inputs.shape == labels.shape == (8, seq_len) and inputs.dtype == labels.dtype == torch.int64
    for x, y in zip(inputs.tolist(), labels.tolist()):
        keys, values = x[0:2 * pairs:2], x[1:2 * pairs:2]
        value_of = dict(zip(keys, values))
        assert len(value_of) == pairs                                  # distinct keys
        labelled = [t for t, label in enumerate(y) if label != IGNORE]
        assert len(labelled) == pairs                                  # every key queried once
        assert sorted(x[t] for t in labelled) == sorted(keys)
        for t in labelled:
            assert t >= 2 * pairs and y[t] == value_of[x[t]]
        assert all(x[t] not in value_of for t in range(2 * pairs, seq_len) if t not in labelled)


@settings(max_examples=30, deadline=None)
@given(mqar_sizes(), st.integers(0, 2**32 - 1))
def test_mqar_keys_and_values_come_from_split_halves_of_the_vocabulary(sizes, seed):
    vocab, seq_len, pairs = sizes
    inputs, labels = mqar(vocab, seq_len, pairs, 16, seed)
    context = inputs[:, : 2 * pairs]
    assert ((context[:, 0::2] >= 1) & (context[:, 0::2] < vocab // 2)).all()
    assert ((context[:, 1::2] >= vocab // 2) & (context[:, 1::2] < vocab)).all()
    answers = labels[labels != IGNORE]
    assert ((answers >= vocab // 2) & (answers < vocab)).all()
    assert ((inputs >= 0) & (inputs < vocab)).all()


@settings(max_examples=20, deadline=None)
@given(mqar_sizes(), st.integers(0, 2**32 - 1))
def test_mqar_same_seed_same_data_other_seed_other_data(sizes, seed):
    vocab, seq_len, pairs = sizes
    a, b = mqar(vocab, seq_len, pairs, 32, seed), mqar(vocab, seq_len, pairs, 32, seed)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    c = mqar(vocab, seq_len, pairs, 32, seed + 1)
    assert not (torch.equal(a[0], c[0]) and torch.equal(a[1], c[1])) or vocab * seq_len < 40


def test_mqar_queries_cluster_soon_after_the_pairs_for_small_power_a():
    _, labels = mqar(64, 256, 4, 2000, 0, power_a=0.01)
    first_query = (labels != IGNORE).float().argmax(1) - 8
    _, uniform = mqar(64, 256, 4, 2000, 0, power_a=1.0)
    assert first_query.float().median() < ((uniform != IGNORE).float().argmax(1) - 8).float().median()


@pytest.mark.parametrize("kwargs, message", [
    ({"vocab_size": 64, "seq_len": 63, "num_kv_pairs": 4}, "even"),
    ({"vocab_size": 64, "seq_len": 12, "num_kv_pairs": 4}, "at least 4"),
    ({"vocab_size": 8, "seq_len": 64, "num_kv_pairs": 4}, "vocab_size"),
    ({"vocab_size": 64, "seq_len": 64, "num_kv_pairs": 0}, "num_kv_pairs"),
])
def test_mqar_bad_sizes_say_what_is_wrong(kwargs, message):
    with pytest.raises(ValueError, match=message):
        mqar(num_examples=2, seed=0, **kwargs)


def test_mqar_config_builds_the_same_data_as_the_function():
    config = MQARConfig(vocab_size=32, seq_len=32, num_kv_pairs=3)
    x, y = config.build(4, (7, 1))
    x2, y2 = mqar(32, 32, 3, 4, (7, 1))
    assert torch.equal(x, x2) and torch.equal(y, y2)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 8), st.integers(0, 30), st.integers(3, 40), st.integers(0, 2**32 - 1))
def test_selective_copying_labels_are_the_data_tokens_in_order(tokens, extra, vocab, seed):
    seq_len = 2 * tokens + extra
    inputs, labels = selective_copying(vocab, seq_len, tokens, 8, seed)
    region = seq_len - tokens
    for x, y in zip(inputs.numpy(), labels.numpy()):
        data = x[:region][x[:region] != 0]
        assert len(data) == tokens and (data >= 2).all() and (data < vocab).all()
        assert (x[region:] == 1).all()
        assert np.array_equal(y[region:], data) and (y[:region] == IGNORE).all()
    again = selective_copying(vocab, seq_len, tokens, 8, seed)
    assert torch.equal(inputs, again[0]) and torch.equal(labels, again[1])
