"""The checks of notebook 09b (troubleshooting).

Each verifier computes the right answer itself, from what the notebook built or from an
invariant, never from a value the learner's cell produced. MindSpore and NumPy are imported
inside the verifiers that need them.
"""

from typing import Any

from ascend_lab.exercises.core import Exercise, Result, Text
from ascend_lab.exercises.measure import measured_once

T = Text  # T(english, chinese): every pointer and hint in both editions' languages


def _first_cell(path: Any, port: Any, reference: Any, x: Any) -> Result:
    """09b.1: the Cell where ``port`` first parts ways with the reference, measured here."""
    from ascend_lab.numerics import compare_numerics

    answer = str(path).strip()
    result = measured_once("09b.1", compare_numerics, port, reference, x)
    order = [p.label for p in result.pairs]
    first = result.first_divergence
    if first is not None and answer in (first.path, first.label):
        return True, T(
            f"{first.label} parts ways first (max rel err {first.max_rel:.2g}) while its "
            f"inputs agree ({first.input_rel:.2g}): the Cell to fix",
            f"{first.label} 最先偏离（最大相对误差 {first.max_rel:.2g}），而它的输入仍然一致"
            f"（{first.input_rel:.2g}）：要修的就是它",
        )
    if first is None:
        return False, T(
            "this port agrees with the reference everywhere: there is no Cell to name",
            "这个移植版与参考输出处处一致：没有要找的 Cell",
        )
    if answer in order and order.index(answer) > order.index(first.label):
        return False, T(
            f"{answer} differs too, but only because its inputs already differ: "
            "look for the first Cell whose inputs still agree",
            f"{answer} 也不一致，但那是因为它的输入已经不一致了：要找的是输入仍然一致的第一个 Cell",
        )
    if answer in order:
        return False, T(
            f"{answer} still agrees with the reference: the break comes later",
            f"{answer} 仍与参考输出一致：偏离出现在后面",
        )
    return False, T(
        f"no Cell of the port is called {answer!r}: the names are the table's `cell` column",
        f"移植版里没有名为 {answer!r} 的 Cell：名字见表格中的 `cell` 列",
    )


def _element_if(cell: Any) -> Result:
    """09b.2: ``cell`` (a Cell class or instance) gives |a| element by element in GRAPH_MODE."""
    import mindspore as ms
    import numpy as np

    a = np.array([-2.0, -0.5, 0.0, 1.5, 3.0], np.float32)
    want = np.where(a > 0, a, -a)
    mode = ms.get_context("mode")
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = cell() if isinstance(cell, type) else cell
        got = np.asarray(net(ms.Tensor(a)).asnumpy(), np.float32).reshape(-1)
    except Exception as exc:  # noqa: BLE001 - the learner's Cell may fail any way
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:160]
        return False, T(
            f"it does not run in graph mode: {type(exc).__name__}: {first}",
            f"它在图模式下无法运行：{type(exc).__name__}：{first}",
        )
    finally:
        ms.set_context(mode=mode)
    if got.shape != want.shape or not np.allclose(got, want):
        return False, T(
            f"on {a.tolist()} it gives {np.round(got, 3).tolist()}, not "
            f"{want.tolist()}: each element must pick its own branch",
            f"输入 {a.tolist()} 时得到 {np.round(got, 3).tolist()}，而不是 {want.tolist()}："
            "每个元素要各自选择分支",
        )
    return True, T(
        f"{want.tolist()} in graph mode: the choice is data (select), not control flow",
        f"图模式下得到 {want.tolist()}：这里的选择是数据（select），不是控制流",
    )


EXERCISES = (
    Exercise(
        "09b",
        1,
        _first_cell,
        T(
            "Print r.table() of compare_numerics(gelu_port, reference_file, x_port): the "
            "row marked FIRST is the first Cell whose error jumps while its inputs agree.",
            "打印 compare_numerics(gelu_port, reference_file, x_port) 的 r.table()："
            "标着 FIRST 的那一行，就是输入仍然一致、误差却突然变大的第一个 Cell。",
        ),
        "r = ascend_lab.compare_numerics(gelu_port, reference_file, x_port)\n"
        "print(r.table())\n"
        "my_first = r.first_divergence.label",
    ),
    Exercise(
        "09b",
        2,
        _element_if,
        T(
            "The doctor's second fix: ops.select(a > 0, a, -a) computes both branches and "
            "picks per element; no Python `if` on the tensor.",
            "诊断给出的第二条修复：ops.select(a > 0, a, -a) 把两个分支都算出来，再逐元素选择；"
            "不要对张量用 Python 的 `if`。",
        ),
        "class ElementIf(nn.Cell):\n"
        "    def construct(self, a):\n"
        "        return ops.select(a > 0, a, -a)",
    ),
)
