"""Fakes shared by tests: a fake Ascend machine (fake npu-smi + install root)."""
