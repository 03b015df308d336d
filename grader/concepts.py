"""The names of the concepts exercises list (``concepts:`` in ``exercise.yaml``), in words.

A spec names its concepts by slug (``gradient-accumulation``) so that progress can be counted
across exercises; a learner reads them on the dashboard and in ``grade show``, in their own
language. :func:`concept_name` is the one place a slug becomes words. A course's own slug that
this table lacks is shown as words too (hyphens become spaces), never as a raw slug;
``tests/test_i18n_view.py`` holds the built-in course to a name in both languages for every slug.
"""

from __future__ import annotations

from grader.i18n import Text

CONCEPTS: dict[str, Text] = {
    "advanced-indexing": Text("advanced indexing", "高级索引"),
    "attention-heads": Text("attention heads", "注意力头"),
    "autograd": Text("autograd", "自动求导"),
    "boolean-mask": Text("boolean mask", "布尔掩码"),
    "boolean-masks": Text("boolean masks", "布尔掩码"),
    "broadcasting": Text("broadcasting", "广播"),
    "cat": Text("concatenation (cat)", "拼接（cat）"),
    "clone": Text("clone", "克隆（clone）"),
    "contiguous": Text("contiguous memory", "连续内存（contiguous）"),
    "copies": Text("copies", "副本"),
    "detach": Text("detach", "分离计算图（detach）"),
    "device": Text("device", "设备"),
    "dim": Text("the dim argument", "维度参数 dim"),
    "dtype": Text("data type (dtype)", "数据类型（dtype）"),
    "dtype-promotion": Text("type promotion", "类型提升"),
    "elementwise-arithmetic": Text("elementwise arithmetic", "逐元素运算"),
    "exploding-gradients": Text("exploding gradients", "梯度爆炸"),
    "float32": Text("float32", "32 位浮点数（float32）"),
    "gather": Text("gather", "按索引收集（gather）"),
    "global-random-state": Text("global random state", "全局随机状态"),
    "gradient-accumulation": Text("gradient accumulation", "梯度累积"),
    "gradient-clipping": Text("gradient clipping", "梯度裁剪"),
    "gradient-descent": Text("gradient descent", "梯度下降"),
    "indexing": Text("indexing", "索引"),
    "inference": Text("inference", "推理"),
    "int64-labels": Text("int64 labels", "int64 标签"),
    "keepdim": Text("keepdim", "保留维度（keepdim）"),
    "leaf-tensors": Text("leaf tensors", "叶子张量"),
    "linear-regression": Text("linear regression", "线性回归"),
    "memory": Text("memory layout", "内存布局"),
    "min-max-scaling": Text("min-max scaling", "最小-最大缩放"),
    "nan-inf": Text("NaN and inf", "NaN 与 inf"),
    "nested-batches": Text("nested batches", "嵌套批次"),
    "nn-module": Text("nn.Module", "nn.Module 模块"),
    "no-grad": Text("no_grad", "关闭梯度（no_grad）"),
    "numerical-stability": Text("numerical stability", "数值稳定性"),
    "numpy": Text("NumPy", "NumPy"),
    "numpy-interop": Text("NumPy interoperability", "与 NumPy 互操作"),
    "one-hot": Text("one-hot encoding", "独热编码"),
    "optimizer": Text("optimizer", "优化器"),
    "permute": Text("permute", "维度重排（permute）"),
    "randn-like": Text("randn_like", "randn_like 随机张量"),
    "random-init": Text("random initialisation", "随机初始化"),
    "random-seed": Text("random seed", "随机种子"),
    "reductions": Text("reductions", "归约运算"),
    "reproducibility": Text("reproducibility", "可复现性"),
    "requires-grad": Text("requires_grad", "需要梯度（requires_grad）"),
    "reshape": Text("reshape", "改变形状（reshape）"),
    "scatter": Text("scatter", "按索引写入（scatter）"),
    "shape": Text("shape", "形状"),
    "shapes": Text("shapes", "形状"),
    "shared-memory": Text("shared memory", "共享内存"),
    "slicing": Text("slicing", "切片"),
    "squeeze": Text("squeeze", "删除维度（squeeze）"),
    "stack": Text("stack", "堆叠（stack）"),
    "standardization": Text("standardisation", "标准化"),
    "strides": Text("strides", "步长（stride）"),
    "tensor-creation": Text("creating tensors", "创建张量"),
    "to-device": Text("moving to a device", "移动到设备"),
    "torch-generator": Text("torch.Generator", "随机数生成器（torch.Generator）"),
    "train-eval-mode": Text("train and eval modes", "训练与评估模式"),
    "train-validation-split": Text("train/validation split", "训练集与验证集划分"),
    "training-loop": Text("training loop", "训练循环"),
    "transpose": Text("transpose", "转置"),
    "uint8": Text("uint8", "8 位无符号整数（uint8）"),
    "unsqueeze": Text("unsqueeze", "增加维度（unsqueeze）"),
    "vectorization": Text("vectorisation", "向量化"),
    "views": Text("views", "视图"),
    "zero-grad": Text("zero_grad", "梯度清零（zero_grad）"),
}


def concept_name(slug: str, lang: str) -> str:
    """The concept ``slug`` in words, in ``lang``."""
    known = CONCEPTS.get(slug)
    return known.get(lang) if known is not None else slug.replace("-", " ")
