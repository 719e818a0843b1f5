"""HTML of the decisions pages, built as strings: every value that came from a draft, a reviewer
or the database goes through `e()` (html.escape with quotes), and nothing from a draft is ever
rendered as markup or as a link: the draft's text is shown as text, findings marked in it.

The pages carry no script at all, and the server sends a Content-Security-Policy that forbids
scripts, plugins, frames and any resource not from the page's own origin (streams.ui._app).
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlencode

from streams.ui._queries import DraftVersion, Filters

CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{background:#1d2430;color:#fff;padding:10px 20px}header a{color:#fff;text-decoration:none}
main{padding:16px 20px;max-width:1200px}table{border-collapse:collapse;width:100%;background:#fff}
th,td{border-bottom:1px solid #e3e6ea;padding:6px 8px;text-align:left;vertical-align:top}
th{background:#eef0f3;font-weight:600}form.filters{display:flex;flex-wrap:wrap;gap:8px;
margin-bottom:12px;align-items:end}form.filters label{display:flex;flex-direction:column;
font-size:12px;color:#555}.approved{color:#17703a;font-weight:600}.rejected{color:#b3261e;
font-weight:600}.flag{display:inline-block;background:#eef0f3;border-radius:3px;padding:0 5px;
margin-right:3px;font-size:12px}pre.text{white-space:pre-wrap;word-wrap:break-word;background:#fff;
padding:12px;border:1px solid #e3e6ea;max-height:70vh;overflow:auto}mark{background:#ffe08a}
mark.critical{background:#ffb4ab}mark.info{background:#c8e6ff}.muted{color:#777}
section{margin:18px 0}.error{background:#fff;border-left:4px solid #b3261e;padding:12px}
"""


def e(value: Any) -> str:
    """Escaped text for HTML content and attribute values."""
    return html.escape("" if value is None else str(value), quote=True)


def page(title: str, body: str) -> str:
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name="referrer" content="no-referrer">'
        f"<title>{e(title)} - multiqa</title>"
        '<link rel="stylesheet" href="/ui.css"></head><body>'
        '<header><a href="/">multiqa decisions</a></header>'
        f"<main>{body}</main></body></html>"
    )


def error_page(title: str, message: str) -> str:
    return page(title, f"<h1>{e(title)}</h1><p class=error>{e(message)}</p>"
                       '<p><a href="/">back to the decisions</a></p>')  # fmt: skip


def _verdict(approved: bool | None) -> str:
    if approved is None:
        return '<span class="muted">pending</span>'
    return (
        '<span class="approved">approved</span>'
        if approved
        else '<span class="rejected">rejected</span>'
    )


def _flags(row: Any) -> str:
    names = [
        (label, row[column])
        for label, column in (
            ("early", "early_decided"),
            ("short-circuit", "short_circuited"),
            ("timed out", "timed_out"),
            ("needs human review", "needs_human_review"),
        )
    ]
    return "".join(f'<span class="flag">{e(label)}</span>' for label, on in names if on)


def detail_href(draft_id: str, version: int) -> str:
    return "/draft?" + urlencode({"id": draft_id, "version": version})


def _select(name: str, current: str, options: Sequence[tuple[str, str]]) -> str:
    items = "".join(
        f'<option value="{e(v)}"{" selected" if v == current else ""}>{e(label)}</option>'
        for v, label in options
    )
    return f'<select name="{e(name)}">{items}</select>'


def list_page(f: Filters, rows: Sequence[Any], more: bool, reviewers: Iterable[str]) -> str:
    shown = f.as_query()
    form = (
        '<form class="filters" method="get" action="/">'
        f'<label>search title or draft id<input name="q" value="{e(f.q)}" size="28"></label>'
        "<label>outcome"
        + _select(
            "outcome", f.outcome, [("", "any"), ("approved", "approved"), ("rejected", "rejected")]
        )
        + "</label><label>needs human review"
        + _select("human", f.human, [("", "any"), ("yes", "yes"), ("no", "no")])
        + "</label><label>reviewer"
        + _select("reviewer", f.reviewer, [("", "any"), *((r, r) for r in reviewers)])
        + "</label><label>its result"
        + _select(
            "reviewer_result",
            f.reviewer_result,
            [(v, v) for v in ("any", "approved", "disapproved", "skipped", "error")],
        )
        + f'</label><label>decided since (UTC)<input type="datetime-local" name="since" '
        f'value="{e(shown.get("since", ""))}"></label>'
        f'<label>until<input type="datetime-local" name="until" '
        f'value="{e(shown.get("until", ""))}"></label>'
        '<button type="submit">filter</button> <a href="/">clear</a></form>'
    )
    if not rows:
        table = '<p class="muted" id="empty">No decisions match.</p>'
    else:
        body = "".join(
            "<tr>"
            f"<td>{e(r['decided_at'].strftime('%Y-%m-%d %H:%M:%S'))}</td>"
            f'<td><a href="{e(detail_href(r["draft_id"], r["version"]))}">{e(r["draft_id"])}</a>'
            f" v{e(r['version'])}</td>"
            f"<td>{e(r['title'] or '')}</td>"
            f"<td>{_verdict(r['approved'])}</td><td>{r['final_score']:.1f}</td>"
            f"<td>{_flags(r)}</td>"
            f"<td>{e(', '.join(r['missing_reviewers']))}</td>"
            "</tr>"
            for r in rows
        )
        table = (
            '<table id="decisions"><thead><tr><th>decided (UTC)</th><th>draft</th><th>title</th>'
            "<th>result</th><th>score</th><th>flags</th><th>missing</th></tr></thead>"
            f"<tbody>{body}</tbody></table>"
        )
    pager = []
    if f.page > 1:
        pager.append(f'<a href="/?{e(urlencode(f.as_query(page=f.page - 1)))}">newer</a>')
    if more:
        pager.append(f'<a href="/?{e(urlencode(f.as_query(page=f.page + 1)))}">older</a>')
    return page(
        "decisions", "<h1>Decisions</h1>" + form + table + "<p>" + " · ".join(pager) + "</p>"
    )


# --- one draft version -----------------------------------------------------------------------


def _findings(review: Any) -> list[dict[str, Any]]:
    value = review["findings"]
    found = json.loads(value) if isinstance(value, str) else value
    return [f for f in found or [] if isinstance(f, dict)]


def highlight(text: str, marks: Sequence[tuple[int, int, str, str]]) -> str:
    """`text` escaped, with each (start, end, severity, label) span wrapped in <mark>. Spans
    outside the text are dropped; overlapping ones are cut so marks never nest."""
    good = sorted(
        (max(0, s), min(len(text), en), sev, label)
        for s, en, sev, label in marks
        if 0 <= s < en <= len(text)
    )
    out: list[str] = []
    pos = 0
    for start, end, severity, label in good:
        start = max(start, pos)
        if start >= end:
            continue
        out.append(e(text[pos:start]))
        css = severity if severity in ("critical", "warning", "info") else "warning"
        out.append(f'<mark class="{css}" title="{e(label)}">{e(text[start:end])}</mark>')
        pos = end
    out.append(e(text[pos:]))
    return "".join(out)


def detail_page(view: DraftVersion, draft_id: str, version: int, versions: Sequence[int],
                trace_url: str = "") -> str:  # fmt: skip
    d = view.decision
    title = view.title or draft_id
    parts = [f"<h1 id=title>{e(title)}</h1>",
             f'<p>draft <code id=draft-id>{e(draft_id)}</code> version {e(version)}']  # fmt: skip
    others = [v for v in versions if v != version]
    if others:
        links = ", ".join(f'<a href="{e(detail_href(draft_id, v))}">v{e(v)}</a>' for v in others)
        parts.append(f" (other versions: {links})")
    parts.append("</p>")
    if d is None:
        parts.append('<section id=decision><h2>Decision</h2><p class="muted">pending: no '
                     "decision recorded yet</p></section>")  # fmt: skip
    else:
        trace = e(d["trace_id"]) if d["trace_id"] else '<span class="muted">none</span>'
        if d["trace_id"] and trace_url:
            trace = f'<a href="{e(trace_url.replace("{trace_id}", d["trace_id"]))}">{trace}</a>'
        rows = [
            ("result", f"{_verdict(d['approved'])} {d['final_score']:.1f}/100 {_flags(d)}"),
            ("summary", e(d["summary"])),
            ("vetoes", e("; ".join(d["vetoes"])) or "-"),
            ("missing reviewers", e(", ".join(d["missing_reviewers"])) or "-"),
            ("decided", e(d["decided_at"].strftime("%Y-%m-%d %H:%M:%S UTC"))),
            ("settings version", e(d["settings_version"])),
            ("trace id", f"<span id=trace-id>{trace}</span>"),
        ]
        table = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
        parts.append(f"<section id=decision><h2>Decision</h2><table>{table}</table>"
                     f'<h3>Feedback</h3><pre class="text" id=feedback>{e(d["feedback_text"])}</pre>'
                     "</section>")  # fmt: skip
    parts.append(_reviewers(view))
    parts.append(_draft_text(view))
    parts.append(_costs(view))
    return page(f"{title} v{version}", "".join(parts))


def _reviewers(view: DraftVersion) -> str:
    counted: set[str] = set()
    if view.decision is not None:
        compact = view.decision["reviews"]
        compact = json.loads(compact) if isinstance(compact, str) else compact
        counted = {str(r.get("reviewer")) for r in compact or [] if isinstance(r, dict)}
    rows = []
    for r in view.reviews:
        note = ""
        if view.decision is not None and r["reviewer"] not in counted:
            late = r["produced_at"] > view.decision["decided_at"]
            note = ' <span class="flag">after the decision</span>' if late else (
                ' <span class="flag">not counted</span>')  # fmt: skip
        # A reviewer that skipped or failed gave no verdict (its stored `approved` is False).
        answered = r["status"] == "ok"
        score = f"{r['score']:.1f}" if answered else "-"
        verdict = _verdict(r["approved"]) if answered else '<span class="muted">-</span>'

        findings = "".join(
            f'<li><span class="flag">{e(f.get("severity"))}</span> <code>{e(f.get("code"))}</code> '
            f"{e(f.get('message'))}</li>"
            for f in _findings(r)
        )
        rows.append(
            f'<tr class="review" data-reviewer="{e(r["reviewer"])}">'
            f"<td>{e(r['reviewer'])}{note}</td>"
            f"<td>{e(r['status'])}</td><td>{score}</td><td class=verdict>{verdict}</td>"
            f'<td><pre class="text">{e(r["feedback"])}</pre>'
            + (f"<p><b>veto:</b> {e(r['veto'])}</p>" if r["veto"] else "")
            + (f"<ul class=findings>{findings}</ul>" if findings else "")
            + "</td></tr>"
        )
    if not rows:
        return '<section id=reviews><h2>Reviewers</h2><p class="muted">none recorded</p></section>'
    return (
        "<section id=reviews><h2>Reviewers</h2><table><thead><tr><th>reviewer</th><th>status</th>"
        "<th>score</th><th>own verdict</th><th>feedback and findings</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></section>"
    )


def _draft_text(view: DraftVersion) -> str:
    if view.draft is None:
        return ('<section id=draft><h2>Draft</h2><p class="muted">the draft\'s text is not '
                "stored (it arrived before qa_drafts existed)</p></section>")  # fmt: skip
    marks = [
        (int(span["start"]), int(span["end"]), str(f.get("severity")),
         f"{r['reviewer']}: {f.get('code')}: {f.get('message')}")
        for r in view.reviews
        for f in _findings(r)
        if isinstance(span := f.get("span"), dict) and "start" in span and "end" in span
    ]  # fmt: skip
    draft = view.draft
    sources = "".join(f"<li>{e(s)}</li>" for s in draft["research_sources"])
    meta = (
        f'<p class="muted">submitted {e(draft["submitted_at"].strftime("%Y-%m-%d %H:%M:%S UTC"))}'
        f" · first seen {e(draft['first_seen_at'].strftime('%Y-%m-%d %H:%M:%S UTC'))}"
        f" · topic {e(draft['topic'] or '-')} · niche {e(draft['niche'] or '-')}"
        f" · writer {e(draft['writer_model'] or '-')} · {len(marks)} findings marked</p>"
    )
    return (
        f"<section id=draft><h2>Draft</h2>{meta}"
        f'<pre class="text" id=draft-text>{highlight(draft["content"], marks)}</pre>'
        + (f"<h3>Research sources</h3><ul>{sources}</ul>" if sources else "")
        + "</section>"
    )


def _costs(view: DraftVersion) -> str:
    if not view.costs:
        return '<section id=costs><h2>Costs</h2><p class="muted">none recorded</p></section>'
    rows = "".join(
        f"<tr><td>{e(c['reviewer'])}</td><td>{e(c['model'] or '-')}</td><td>{c['tokens_in']}</td>"
        f"<td>{c['tokens_out']}</td><td>{c['usd']:.4f}</td><td>{c['kwh']:.6f}</td>"
        f"<td>{c['duration_ms']}</td></tr>"
        for c in view.costs
    )
    total = (
        f"<tr><th>total</th><th></th><th>{sum(c['tokens_in'] for c in view.costs)}</th>"
        f"<th>{sum(c['tokens_out'] for c in view.costs)}</th>"
        f"<th>{sum(c['usd'] for c in view.costs):.4f}</th>"
        f"<th>{sum(c['kwh'] for c in view.costs):.6f}</th>"
        f"<th>{sum(c['duration_ms'] for c in view.costs)}</th></tr>"
    )
    return (
        "<section id=costs><h2>Costs</h2><table><thead><tr><th>reviewer</th><th>model</th>"
        "<th>tokens in</th><th>tokens out</th><th>USD</th><th>kWh</th><th>ms</th></tr></thead>"
        f"<tbody>{rows}{total}</tbody></table></section>"
    )
