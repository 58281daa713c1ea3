"""Large but legitimate ``.ir`` text, written as MindSpore prints a kernel graph, for the
tests and benchmarks that need a parse that takes seconds (the viewer's worker pool)."""


def relu_chain_ir(nodes: int) -> str:
    """A kernel graph of ``nodes`` ReLUs in ten-node blocks, in MindSpore's ``.ir`` text."""
    lines = [
        "# IR entry: @kernel_graph0",
        "",
        "%para1_x: <Tensor[Float32], (1, 8)>",
        "",
        "subgraph @kernel_graph0() {",
    ]
    prev = "%para1_x"
    for i in range(nodes):
        lines.append(f"  %{i}(CNode_{i}) = ReLU({prev})")
        lines.append("      : (<Tensor[Float32], (1, 8)>) -> (<Tensor[Float32], (1, 8)>)")
        lines.append(
            f"      # Fullname with scope: (Default/block{i // 10}-Block/relu-ReLU/ReLU-op{i})"
        )
        prev = f"%{i}"
    lines += [f"  Return({prev})", "}", ""]
    return "\n".join(lines)
