# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: :4:4: error: unexpected character 'é' (U+00E9)
# identifiers are ASCII in loomc: a non-ASCII letter is named
café = 1
