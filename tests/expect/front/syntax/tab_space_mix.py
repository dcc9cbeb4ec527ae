# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/tab_space_mix.py:7:9: error: inconsistent use of tabs and spaces in indentation
# a tab on one line, eight spaces on the next: equal only by the tab-size rule
@triton.jit
def k(x_ptr):
	pid = tl.program_id(0)
        tl.store(x_ptr + pid, 1.0)
