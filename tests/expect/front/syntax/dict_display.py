# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/dict_display.py:6:11: error: dict and set displays ('{...}') are not supported
# a dict display
@loomc.launch
def run(M):
    cfg = {"BLOCK_M": 64}
