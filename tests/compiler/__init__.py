"""Tests of gryph.compiler: parsing, checking, lowering and the plan."""
