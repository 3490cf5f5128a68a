"""Values not of their declared types in each output: the text table, the JSON document, the HTML section."""

from __future__ import annotations

import json

from gryph.client.cli.main import main


def test_every_output_names_the_values_and_their_rows(tmp_path, capsys):
    # by hand: row 1's amount '<b>' and row 3's '1,5' (quoted: one field) are no doubles; row 2's is
    (tmp_path / "d.csv").write_text('id,amount\n1,<b>\n2,3.5\n3,"1,5"\n', encoding="utf-8")
    suite = tmp_path / "s.dq"
    suite.write_text(
        'source d = csv("d.csv", schema = "id bigint, amount double")\n'
        'check "clean": metrics["source:d"]["malformed"] == 0\npass when all\n',
        encoding="utf-8",
    )
    html, document = tmp_path / "r.html", tmp_path / "r.json"
    assert main(["run", str(suite), "--html", str(html), "--no-history"]) == 1
    shown = capsys.readouterr().out
    assert main(["run", str(suite), "--format", "json", "--output", str(document), "--no-history"]) == 1
    assert "d: 2 values not of the declared type (read as NULL)" in shown
    assert "amount  double  2          row 1: '<b>', row 3: '1,5'" in shown
    assert json.loads(document.read_text(encoding="utf-8"))["malformed_values"] == {
        "d": {
            "amount": {
                "type": "double",
                "malformed": 2,
                "examples": [{"row": 1, "value": "<b>"}, {"row": 3, "value": "1,5"}],
            }
        }
    }
    page = html.read_text(encoding="utf-8")
    assert (
        '<tr><td>d</td><td>amount</td><td>double</td><td class="num">2</td>'
        "<td>row 1: &#x27;&lt;b&gt;&#x27;, row 3: &#x27;1,5&#x27;</td></tr>"
    ) in page
