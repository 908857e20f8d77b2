"""The recorded kernel keeps the blocks an SM holds: its register cap, and the compile cache that
must not hand back a kernel compiled under other hooks or another cap. Pure functions, no GPU."""

import pytest

from gpuviz.core.analysis.occupancy import blocks_by_registers, register_cap


@pytest.mark.parametrize("registers, warps, blocks", [(8, 32, 8), (32, 32, 2), (33, 32, 1), (40, 32, 1),
                                                      (32, 4, 16), (64, 1, 32), (255, 1, 8)])  # fmt: skip
def test_blocks_by_registers_counts_registers_given_in_units_of_256_a_warp(registers, warps, blocks):
    assert blocks_by_registers(registers, warps) == blocks


@pytest.mark.parametrize("plain", [8, 16, 24, 30, 32, 40, 56, 64, 96, 128, 200, 255])
@pytest.mark.parametrize("block", [32, 64, 96, 128, 256, 384, 512, 1024])
@pytest.mark.parametrize("threads_per_sm, blocks_per_sm", [(2048, 32), (1536, 16), (1024, 16)])
def test_the_cap_keeps_the_plain_kernels_blocks_and_is_the_most_that_does(plain, block, threads_per_sm, blocks_per_sm):
    warps = -(-block // 32)
    other = min(threads_per_sm // (warps * 32), blocks_per_sm)
    held = min(blocks_by_registers(plain, warps), other)
    if held == 0:
        pytest.skip("the kernel as it is cannot run this launch: its registers do not fit one block")
    cap = register_cap(plain, warps, other)
    assert (cap % 8 == 0 or cap == 255) and 16 <= cap <= 255
    assert cap >= min(plain, 255) - 7  # never below what the plain kernel itself needs (to the 8 above)
    assert min(blocks_by_registers(cap, warps), other) >= held
    if cap + 8 <= 255:  # eight more would lose a block (at 255, numba's limit, nothing is lost)
        assert min(blocks_by_registers(cap + 8, warps), other) < held


def test_the_kernels_cache_name_changes_with_the_hooks_and_the_cap(monkeypatch):
    from gpuviz.backends.gpu import backend

    digest = backend._build_digest.__wrapped__
    today = digest(None)
    assert digest(None) == today
    assert len({today, digest(32), digest(64)}) == 3
    from gpuviz.backends.gpu.layout import RecordLayout

    assert len({today, digest(None, RecordLayout(flat=True)), digest(None, RecordLayout(site_arrays=(0,)))}) == 3
    monkeypatch.setattr(backend, "hook_source", lambda layout: "other hooks")
    assert digest(None) != today
