"""The typed rule tree: what the parser hands on (frozen dataclasses with file, line and column).

The hand-written parser (``fast_*``) builds it directly; ``convert`` builds it from textX models
for the texts the fast parser leaves to textX. Nothing after the parser sees a textX object.
"""
