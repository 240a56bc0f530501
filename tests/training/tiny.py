"""The tiny run config the training tests share (trains in well under a second per dozen steps)."""
from lcsm_core.tasks import MQARConfig
from lcsm_core.training import ModelConfig, OptimConfig, RunConfig


def tiny_config(**optim) -> RunConfig:
    settings = dict(lr=1e-2, batch_size=16, max_steps=40, max_seconds=60, eval_every=10, snapshot_every=10,
                    test_examples=64, seed=0, device="cpu")
    settings.update(optim)
    return RunConfig(task=MQARConfig(vocab_size=16, seq_len=16, num_kv_pairs=2),
                     model=ModelConfig(variant="gla", d_model=16, expand_dim=16, n_layers=2, short_conv=2),
                     optim=OptimConfig(**settings))
