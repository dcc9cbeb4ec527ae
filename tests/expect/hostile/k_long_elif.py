# RUN: loomc ir %s --shape M=100 --const BLOCK=32
# EXPECT: too many 'elif' clauses: each nests one level deeper, and the limit is 64 levels
# an if with 300 elif clauses
if x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
elif x:
    pass
