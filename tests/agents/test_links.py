"""Link extraction from markdown: what counts as a link, what is an example, and bounded time on
adversarial input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.links import (
    LinkKind,
    extract_links,
    is_external_target,
    is_self_link,
    normalize,
    site_hosts,
    unique,
)
from agents.markdown import mask_code_and_comments as mask_code

DRAFT = """# Title
See [the docs](https://docs.example.com/a_(b) "Docs") and ![chart](https://img.example.com/c.png).
[![badge](https://badge.example/b.svg)](https://ci.example/build) <https://auto.example/x>
Bare https://bare.example/path). And (see https://paren.example/x).
Run `curl http://localhost:8080/inline` first.

```bash
curl http://127.0.0.1/inside-fence
```

<!-- http://hidden.example/comment -->
<a class="x" href="https://html.example/">x</a> <img src='https://himg.example/i.png'>
[ref]: https://ref.example/page "Title"
[mail](mailto:a@b.c) [rel](/about) [frag](#x) [proto](//cdn.example/x)
[angle](<https://angle.example/a b>)
"""


def test_every_kind_of_link_is_found_with_its_offsets():
    found = extract_links(DRAFT)
    assert [(link.kind, link.url) for link in found] == [
        (LinkKind.INLINE, "https://docs.example.com/a_(b)"),
        (LinkKind.IMAGE, "https://img.example.com/c.png"),
        (LinkKind.IMAGE, "https://badge.example/b.svg"),
        (LinkKind.INLINE, "https://ci.example/build"),
        (LinkKind.AUTOLINK, "https://auto.example/x"),
        (LinkKind.BARE, "https://bare.example/path"),
        (LinkKind.BARE, "https://paren.example/x"),
        (LinkKind.HTML, "https://html.example/"),
        (LinkKind.HTML_IMAGE, "https://himg.example/i.png"),
        (LinkKind.REFERENCE, "https://ref.example/page"),
        (LinkKind.INLINE, "mailto:a@b.c"),
        (LinkKind.INLINE, "/about"),
        (LinkKind.INLINE, "#x"),
        (LinkKind.INLINE, "//cdn.example/x"),
        (LinkKind.INLINE, "https://angle.example/a b"),
    ]
    for link in found:
        assert DRAFT[link.start : link.end] == link.url
        assert link.span.text == link.url


def test_code_and_comments_are_not_links():
    urls = {link.url for link in extract_links(DRAFT)}
    assert not any("localhost" in u or "127.0.0.1" in u or "hidden" in u for u in urls)


def test_mask_code_keeps_offsets_and_lines():
    masked = mask_code(DRAFT)
    assert len(masked) == len(DRAFT)
    assert masked.count("\n") == DRAFT.count("\n")
    assert "inside-fence" not in masked and "localhost" not in masked
    assert "https://docs.example.com" in masked


def test_unclosed_fence_runs_to_the_end():
    text = "[a](https://a.example)\n```\n[b](https://b.example)\n"
    assert [link.url for link in extract_links(text)] == ["https://a.example"]


@pytest.mark.parametrize(
    ("target", "external"),
    [
        ("https://x.example", True),
        ("HTTP://X.EXAMPLE", True),
        ("//cdn.example/x", True),
        ("ftp://files.example/", True),
        ("javascript:alert(1)", True),
        ("file:///etc/passwd", True),
        ("mailto:a@b.c", False),
        ("tel:+123", False),
        ("data:image/png;base64,xx", False),
        ("/about", False),
        ("#top", False),
        ("page.html", False),
        ("", False),
    ],
)
def test_external_targets(target, external):
    assert is_external_target(target) is external


def test_unique_drops_fragments_and_case_of_host():
    text = "[a](https://X.example/p#one) [b](https://x.example/p#two) [c](https://x.example/P)"
    assert [link.url for link in unique(extract_links(text))] == [
        "https://X.example/p#one",
        "https://x.example/P",
    ]
    assert normalize("https://X.example/p#frag") == "https://x.example/p"
    assert normalize("http://Bücher.example:8080/x") == "http://xn--bcher-kva.example:8080/x"


def test_self_links():
    hosts = site_hosts("https://www.myblog.example/", ("Shop.Example", None, ""))
    assert hosts == {"myblog.example", "shop.example"}
    assert is_self_link("https://myblog.example/post", hosts)
    assert is_self_link("http://www.myblog.example/post", hosts)
    assert is_self_link("https://cdn.shop.example/x", hosts)
    assert not is_self_link("https://notmyblog.example/", hosts)
    assert not is_self_link("https://myblog.example.evil.example/", hosts)
    assert not is_self_link("/relative", hosts)
    assert not is_self_link("https://x.example/", frozenset())


ADVERSARIAL = {
    "10k links": "\n".join(f"- [l{i}](https://s{i % 500}.example/p/{i})" for i in range(10_000)),
    "brackets": "[" * 500_000,
    "open links": "[a](" * 100_000,
    "closers": "](" * 250_000,
    "backticks": "`` ` " * 100_000,
    "comments": "<!--" * 100_000,
    "fences": "```\n" * 100_000,
    "bare parens": ("https://x.example/" + ")" * 4000 + " ") * 100,
    "html tags": "<a " * 150_000,
    "long html": ("<a " + "x" * 1999) * 200,
    "references": "[a]: " * 100_000,
    "schemes": "https://" * 100_000,
    "nested": ("[" + "[a]" * 100 + "](") * 2000,
    "binary": bytes(range(256)).decode("latin-1") * 2000,
}


@pytest.mark.timeout(20)
@pytest.mark.parametrize("name", ADVERSARIAL)
def test_adversarial_markdown_is_linear(name):
    """Each input is about 0.5 MB; a quadratic pattern would not finish within the timeout
    (bench/links.py prints the actual throughput)."""
    found = extract_links(ADVERSARIAL[name])
    assert all(0 <= link.start <= link.end for link in found)


def test_ten_thousand_links_are_all_found():
    assert len(extract_links(ADVERSARIAL["10k links"])) == 10_000


@given(st.text(max_size=500))
def test_any_text_gives_links_that_point_into_it(text):
    for link in extract_links(text):
        assert text[link.start : link.end] == link.url
