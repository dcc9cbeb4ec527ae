# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:5: error: unterminated triple-quoted string literal (detected at line 6)
# a triple-quoted string never closed, over several lines
x = """abc

def
