"""Every registered model variant. Importing this package registers them all."""
from . import attention, delta, gated, ssm  # noqa: F401  (registration side effect)
from .base import EOSLayer, EOSStates, VariantInfo, parameter_count
from .registry import VARIANT_CLASSES, build_layer, variant_table

VARIANTS = tuple(VARIANT_CLASSES)

__all__ = ["EOSLayer", "EOSStates", "VariantInfo", "VARIANTS", "VARIANT_CLASSES", "build_layer", "parameter_count",
           "variant_table"]
from .coded import CodedLayer, build_layer_from_code  # noqa: E402

__all__ += ["CodedLayer", "build_layer_from_code"]
