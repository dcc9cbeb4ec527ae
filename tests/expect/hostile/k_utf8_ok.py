# RUN: loomc ast %s
# EXIT: 0
# STDOUT: (str "naïve 🚀")
# valid UTF-8 in comments and strings (accents, CJK, an emoji) is fine
# café 漢字 😀
s = "naïve 🚀"
