"""The typed rule tree: what the parser hands on (frozen dataclasses with file, line and column).

``convert`` builds it from textX models; nothing after the parser sees a textX object.
"""
