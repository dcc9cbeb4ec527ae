ast
