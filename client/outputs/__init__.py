"""How a run reads: text, the CI gate (JUnit, Markdown), the headline, the HTML report."""
