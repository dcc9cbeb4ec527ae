# RUN: loomc ast %s
# EXIT: 0
# STDOUT: (dict (str "BLOCK_M") (int 64) (str "num_warps") (int 4))
# a dict display parses (decorator arguments hold them); only evaluating one is refused
@loomc.launch
def run(M):
    cfg = {"BLOCK_M": 64, "num_warps": 4, }
