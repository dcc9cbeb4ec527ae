ast tests/unit/data/gemm_bp.py
