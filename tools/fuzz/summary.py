"""The markdown summary of a full run (tools/fuzz/run.mjs): each API's Schemathesis totals and
failures, then the sections the cross-tenant and cross-agent checks wrote.

    python summary.py --out reports/fuzz-<stamp>.md --title "..." --report merchant=<json> ... --section <md> ...
"""

from __future__ import annotations

import argparse
import json


def schemathesis_section(api: str, path: str) -> list[str]:
    out = [f"## Schemathesis: {api} API", ""]
    try:
        with open(path, encoding="utf-8") as handle:
            report = json.load(handle)
    except (OSError, ValueError) as error:
        return out + [f"Report {path} unreadable: {error}", ""]
    out += ["```json", json.dumps({key: report[key] for key in report if key not in ("operations", "failures")}, indent=2)[:4000], "```", ""]
    failures = report.get("failures") or []
    return out + [f"Failures: {len(failures)}", ""] + [f"- {json.dumps(failure)[:400]}" for failure in failures[:50]] + [""]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--title", required=True)
    parser.add_argument("--report", action="append", default=[], help="api=path of its Schemathesis JSON report")
    parser.add_argument("--section", action="append", default=[], help="a markdown file a check wrote")
    args = parser.parse_args()
    out = [f"# {args.title}", ""]
    for item in args.report:
        api, path = item.split("=", 1)
        out += schemathesis_section(api, path)
    for path in args.section:
        try:
            with open(path, encoding="utf-8") as handle:
                out += [handle.read()]
        except OSError as error:
            out += [f"Section {path} missing: {error}", ""]
    with open(args.out, "w", encoding="utf-8") as handle:
        handle.write("\n".join(out))


if __name__ == "__main__":
    main()
