# RUN: loomc ir %s --shape B=2,P=8,S=64,D=64
# EXPECT: :17:9: error: an offset of this tile of pointers is read from memory at run time (a ragged length or a page table): loomc schedules problems whose sizes are known when it compiles, and cannot size or place programs by what the data holds
# A paged KV cache: the page holding a sequence's block is read from a page
# table, and the key block is loaded from that page.
import triton
import triton.language as tl
import loomc


@triton.jit
def paged_keys(k_cache, table, out, PAGES_PER_SEQ, PAGE: tl.constexpr, D: tl.constexpr):
    b = tl.program_id(0)
    j = tl.program_id(1)
    page = tl.load(table + b * PAGES_PER_SEQ + j)
    rows = tl.arange(0, PAGE)
    cols = tl.arange(0, D)
    k = tl.load(k_cache + page * PAGE * D + rows[:, None] * D + cols[None, :])
    tl.store(out + (b * PAGES_PER_SEQ + j) * PAGE * D + rows[:, None] * D + cols[None, :], k)


@loomc.launch
def spec(B, P, S, D):
    k = loomc.tensor((P * S, D), tl.bfloat16)
    t = loomc.tensor((B * P,), tl.int32)
    o = loomc.output((B * P * S, D), tl.bfloat16)
    paged_keys[(B, P)](k, t, o, P, PAGE=S, D=D)
