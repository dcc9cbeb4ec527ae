# RUN: loomc ast %s
# EXPECT: tests/expect/front/syntax/set_display.py:6:17: error: set displays are not supported
# a set display
@loomc.launch
def run(M):
    names = {"a", "b"}
