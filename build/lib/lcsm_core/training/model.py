"""The small stacked model trained on the synthetic tasks.

    tokens (B, T) → embedding (B, T, d)
      → n_layers × [ x += EOS(conv(norm(x)));  x += MLP(norm(x)) ]     (conv: optional short causal conv)
      → norm → head → logits (B, T, vocab)
"""
from __future__ import annotations

import torch
from torch import nn

from lcsm_core.variants import build_layer, build_layer_from_code

from .config import ModelConfig


def build_eos_layer(config: ModelConfig) -> nn.Module:
    """A registered variant or a model-code layer from the core registry; (B, T, d) → (B, T, d)."""
    if config.code:
        return build_layer_from_code(config.code, config.d_model, config.expand_dim, tau=config.tau, form=config.form)
    return build_layer(config.variant, config.d_model, config.expand_dim, form=config.form)


class MLP(nn.Module):
    def __init__(self, d_model: int, ratio: int):
        super().__init__()
        self.up = nn.Linear(d_model, ratio * d_model)
        self.down = nn.Linear(ratio * d_model, d_model)

    def forward(self, x):                        # (B, T, d) → (B, T, d)
        return self.down(nn.functional.gelu(self.up(x)))


class ShortConv(nn.Module):
    """Causal depthwise convolution over the last `width` tokens (B, T, d) → (B, T, d); lets a
    key's token reach its value's position, which recall needs (Zoology, Based, GLA use it)."""

    def __init__(self, d_model: int, width: int):
        super().__init__()
        self.width = width
        self.conv = nn.Conv1d(d_model, d_model, width, groups=d_model, padding=width - 1)

    def forward(self, x):
        return self.conv(x.transpose(1, 2))[..., : x.shape[1]].transpose(1, 2)


class Block(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.sequence_norm = nn.LayerNorm(config.d_model)
        self.short_conv = ShortConv(config.d_model, config.short_conv) if config.short_conv > 1 else nn.Identity()
        self.eos = build_eos_layer(config)      # form "auto": eos_scan picks the faster form per device
        self.channel_norm = nn.LayerNorm(config.d_model)
        self.mlp = MLP(config.d_model, config.mlp_ratio)

    def eos_input(self, x):                      # (B, T, d) → (B, T, d): what the EOS layer reads
        return self.short_conv(self.sequence_norm(x))

    def forward(self, x):                        # (B, T, d) → (B, T, d)
        x = x + self.eos(self.eos_input(x))
        return x + self.mlp(self.channel_norm(x))


class SequenceModel(nn.Module):
    """Token classifier over (B, T) LongTensors; `forward` returns logits (B, T, vocab)."""

    def __init__(self, config: ModelConfig, vocab_size: int):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, config.d_model)
        self.blocks = nn.ModuleList(Block(config) for _ in range(config.n_layers))
        self.final_norm = nn.LayerNorm(config.d_model)
        self.head = nn.Linear(config.d_model, vocab_size)

    def forward(self, tokens):                   # (B, T) → (B, T, vocab)
        x = self.embedding(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.final_norm(x))

    @torch.no_grad()
    def oscillation_eigenvalues(self, tokens) -> list[torch.Tensor]:
        """Per layer, the eigenvalues of its oscillation state on this batch (complex 1-D, CPU);
        an empty tensor for a layer that cannot report them."""
        out = []
        x = self.embedding(tokens)
        for block in self.blocks:
            layer_input = block.eos_input(x)
            eig = getattr(block.eos, "eigenvalues", None)
            out.append(eig(layer_input).detach().cpu().to(torch.complex64).flatten() if eig
                       else torch.zeros(0, dtype=torch.complex64))
            x = block(x)
        return out
