"""The checks of notebook 07 (deployment).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

import configparser
import os
from typing import Any, List, Optional, Tuple

from ascend_lab.exercises.core import Exercise, Result, Text

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _calibration_folder(cfg: configparser.ConfigParser) -> Tuple[List[str], str]:
    """(input names of [ascend_context]'s input_shape, the folder of calibrate_path)."""
    shapes = cfg.get("ascend_context", "input_shape", fallback="")
    names = [part.split(":", 1)[0].strip() for part in shapes.split(";") if ":" in part]
    value = cfg.get("data_preprocess_param", "calibrate_path").strip()
    return names, value


# The values converter_lite accepts for a full quantization (MindSpore Lite 2.0-2.5
# "Quantization" page: full quantization is 8 bits; the activation methods; a boolean).
_QUANT_VALUES = (
    ("common_quant_param", "bit_num", ("8",)),
    ("full_quant_param", "activation_quant_method", ("MAX_MIN", "KL", "REMOVAL_OUTLIER")),
    ("full_quant_param", "bias_correction", ("true", "false")),
)


def _bad_quant_value(cfg: configparser.ConfigParser) -> Optional[Text]:
    """What is wrong with a value converter_lite would refuse, or None."""
    for section, key, allowed in _QUANT_VALUES:
        value = cfg.get(section, key).strip()
        if value not in allowed:
            choices = " | ".join(allowed)
            return T(
                f"[{section}] {key}={value!r} is not a value converter_lite takes for a full "
                f"quantization: {choices}",
                f"[{section}] {key}={value!r} 不是 converter_lite 全量化接受的取值：{choices}",
            )
    return None


def _quant_config(path: Any, calib_dir: Any = None) -> Result:

    cfg = configparser.ConfigParser()
    with open(str(path), encoding="utf-8") as fh:
        text = fh.read(64 * 1024)
    try:
        cfg.read_string(text)
    except configparser.Error as err:  # duplicate sections or keys: the cell ran twice
        first = str(err).splitlines()[0][:160]
        return False, T(
            f"the file does not parse ({first}): running an appending cell twice adds the "
            "sections twice; write the whole file each time",
            f"文件无法解析（{first}）：追加写入的单元运行两次就会重复添加这些节；"
            "每次都应重写整个文件",
        )
    need = {
        "ascend_context": ["input_shape"],
        "common_quant_param": ["quant_type", "bit_num"],
        "data_preprocess_param": ["calibrate_path", "calibrate_size", "input_type"],
        "full_quant_param": ["activation_quant_method", "bias_correction", "target_device"],
    }
    for section, keys in need.items():
        if not cfg.has_section(section):
            return False, T(f"the file has no [{section}] section", f"文件中没有 [{section}] 节")
        missing = [k for k in keys if not cfg.has_option(section, k)]
        if missing:
            return False, T(f"[{section}] lacks {missing}", f"[{section}] 缺少 {missing}")
    if cfg.get("common_quant_param", "quant_type").strip() != "FULL_QUANT":
        return False, T(
            "int8 weights and activations need quant_type=FULL_QUANT",
            "权重和激活都要 int8，需要 quant_type=FULL_QUANT",
        )
    bad = _bad_quant_value(cfg)
    if bad is not None:
        return False, bad
    names, value = _calibration_folder(cfg)
    if names != ["x"]:
        return False, T(
            f"[ascend_context]'s input_shape names the model's inputs: this net has one, "
            f"x, shaped [1,1,32,32] (got {names or 'no name'})",
            f"[ascend_context] 的 input_shape 要写模型的输入名：这个网络只有一个输入 x，"
            f"形状为 [1,1,32,32]（现在是 {names or '没有名字'}）",
        )
    name, sep, folder = value.partition(":")
    if not sep or not name.strip() or (names and name.strip() not in names):
        want = names[0] if names else "x"
        return False, T(
            f"calibrate_path names the model input first: {want}:<folder> "
            f"(the input of [ascend_context]'s input_shape)",
            f"calibrate_path 要先写模型输入的名字：{want}:<文件夹>"
            f"（即 [ascend_context] 中 input_shape 的输入名）",
        )
    if cfg.get("data_preprocess_param", "input_type").strip().upper() != "BIN":
        return False, T(
            "the calibration inputs are raw .bin tensors: input_type=BIN",
            "校准输入是原始的 .bin 张量：input_type=BIN",
        )
    size_text = cfg.get("data_preprocess_param", "calibrate_size").strip()
    if not size_text.isdigit() or int(size_text) < 1:
        return False, T(
            "calibrate_size is how many calibration inputs to use: a positive integer",
            "calibrate_size 是要用的校准输入个数：一个正整数",
        )
    if calib_dir is not None:
        here = os.path.realpath(str(calib_dir))
        if os.path.realpath(folder.strip()) != here:
            return False, T(
                f"calibrate_path points at {folder.strip()!r}; the inputs are in {here}",
                f"calibrate_path 指向 {folder.strip()!r}；校准输入在 {here}",
            )
        count = sum(1 for n in os.listdir(here) if n.endswith(".bin"))
        if int(size_text) != count:
            return False, T(
                f"calibrate_size={size_text}, but the folder holds {count} .bin inputs",
                f"calibrate_size={size_text}，但文件夹里有 {count} 个 .bin 输入",
            )
    if cfg.get("full_quant_param", "target_device").strip() != "ASCEND":
        return False, T(
            "the converter quantizes for Ascend only with target_device=ASCEND",
            "只有 target_device=ASCEND 时，转换工具才会面向昇腾量化",
        )
    return True, T(
        "a full-quantization config with calibration data, for Ascend",
        "一份面向昇腾、带校准数据的全量化配置",
    )


def _quantized_file(nbytes: Any, float_file: Any, int8_file: Any) -> Result:
    """07.2: the size of the MindIR exported from the net whose weights went through int8,
    measured on the file the check cell wrote."""

    want, was = os.path.getsize(str(int8_file)), os.path.getsize(str(float_file))
    got = float(nbytes)
    if abs(got - want) <= 0.02 * want:
        return True, T(
            f"{want} bytes, {want - was:+d} against lenet.mindir ({was}): the net holds q * s "
            "as float32, so export writes 4 bytes per weight as before",
            f"{want} 字节，比 lenet.mindir（{was}）{want - was:+d}：网络里存的是 float32 的 "
            "q * s，导出时每个权重仍是 4 字节",
        )
    if got < 0.75 * want:
        return False, T(
            "set_data put the dequantized q * s back into the net: what dtype are the "
            "parameters now, and how many bytes does each take?",
            "set_data 放回网络的是反量化后的 q * s：这些参数现在是什么 dtype，每个占几个字节？",
        )
    return False, T(
        "the file holds the graph and every parameter: compare with lenet.mindir's size",
        "文件里是图和所有参数：和 lenet.mindir 的大小比一比",
    )


def _float16_file(nbytes: Any, float_file: Any, fp16_file: Any) -> Result:
    """07.3: the size of the MindIR exported after the parameters were stored as float16,
    measured on the file the check cell wrote (within 2%, as 07.2)."""
    sizes = {
        name: os.path.getsize(str(path))
        for name, path in (("fp16", fp16_file), ("fp32", float_file))
    }
    got = float(nbytes)
    close = {name: abs(got - size) <= 0.02 * size for name, size in sizes.items()}
    shrink = sizes["fp32"] - sizes["fp16"]
    why = T(
        "the file holds the graph and every parameter: compare with lenet.mindir's size",
        "文件里是图和所有参数：和 lenet.mindir 的大小比一比",
    )
    if close["fp16"]:
        why = T(
            f"{sizes['fp16']} bytes, {shrink} less than lenet.mindir ({sizes['fp32']}): every "
            "parameter now takes 2 bytes instead of 4; the graph itself did not shrink",
            f"{sizes['fp16']} 字节，比 lenet.mindir（{sizes['fp32']}）少 {shrink}：每个参数现在"
            "占 2 字节而不是 4 字节；图本身没有变小",
        )
    elif close["fp32"]:
        why = T(
            "set_dtype changed what is stored: the parameters are float16 now",
            "set_dtype 改变了保存的内容：参数现在是 float16",
        )
    elif got < sizes["fp16"]:
        why = T(
            "only the parameters halve: the graph and the file's own fields stay as they were",
            "只有参数减半：图和文件自身的字段保持不变",
        )
    return close["fp16"], why


EXERCISES = (
    Exercise(
        "07",
        1,
        _quant_config,
        T(
            "Add [data_preprocess_param] (calibrate_path, calibrate_size, input_type) "
            "and [full_quant_param] (activation_quant_method, bias_correction, "
            "target_device=ASCEND).",
            "添加 [data_preprocess_param]（calibrate_path、calibrate_size、input_type）"
            "和 [full_quant_param]（activation_quant_method、bias_correction、"
            "target_device=ASCEND）。",
        ),
        "# rewrite the file from its first three sections: running the cell twice is safe\n"
        'base = open(config).read().split("\\n[data_preprocess_param]")[0]\n'
        'with open(config, "w") as fh:\n'
        "    fh.write(base)\n"
        '    fh.write("\\n[data_preprocess_param]\\n"\n'
        '             f"calibrate_path=x:{calib_dir}\\n"\n'
        '             f"calibrate_size={len(calib_files)}\\n"\n'
        '             "input_type=BIN\\n")\n'
        '    fh.write("\\n[full_quant_param]\\nactivation_quant_method=MAX_MIN\\n"\n'
        '             "bias_correction=true\\ntarget_device=ASCEND\\n")\n'
        "my_config = config",
    ),
    Exercise(
        "07",
        2,
        _quantized_file,
        T(
            "Which values did set_data put into int8_net's parameters, in which dtype?",
            "set_data 往 int8_net 的参数里放的是什么值、什么 dtype？",
        ),
        "# the weights are q * s in float32 again: 4 bytes each, as in lenet.mindir\n"
        "my_int8_bytes = os.path.getsize(mindir)",
    ),
    Exercise(
        "07",
        3,
        _float16_file,
        T(
            "Start from lenet.mindir's size: each parameter now takes 2 bytes less.",
            "从 lenet.mindir 的大小出发：每个参数现在少占 2 字节。",
        ),
        "n_params = sum(p.size for p in net.get_parameters())\n"
        "my_fp16_bytes = os.path.getsize(mindir) - 2 * n_params",
    ),
)
