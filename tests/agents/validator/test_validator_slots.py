"""Issue 11, session 4: placeholders as the concept of an unfilled template slot (_slots), in
any wording: bracketed slot names in any case, editor instructions and media markers in
brackets, template variables in several syntaxes, empty or dummy link targets and domains, year
slots, TODO/TBD markers. Each wording was written for this file (none from a corpus), beside
look-alikes that must pass: links, footnotes, task lists, keys, log levels, editorial insertions
in quotes, image credits, intervals, indexing, slots a sentence talks about, RFC 2606 domains
named in prose, shell variables and format masks.
"""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate

BASE = (
    "# Choosing a message queue\n\nPicking a queue is mostly about the guarantees your consumers "
    "need.\n\n{X}\n\n## Operations\n\nRun the broker where your team already has "
    "monitoring.\n\nIn short, pick the simplest system that gives you the guarantees you need.\n"
)

SLOTS = [
    "Written by [Your Name], who has run queues in production.",
    "Written by [AUTHOR], senior engineer at [Company].",
    "Contact us at [email address] for a review.",
    "Thanks to {{author_name}} for the review.",
    "This guide was prepared for {{ company }} readers.",
    "Our pricing starts at {PRICE} per month.",
    "Read the full benchmark here: <INSERT LINK>.",
    "See <insert benchmark link here> for the numbers.",
    "See the vendor comparison [link to comparison page].",
    "The official documentation (add link) covers every flag.",
    "The official documentation (link TBD) covers every flag.",
    "Retention settings: TBD.",
    "We will cover partitions in a later post (TODO: write it).",
    "Throughput figures go here XXX.",
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
    "[Image: a diagram of producers, a broker and consumers]",
    "[Screenshot of the consumer lag dashboard]",
    "[Insert diagram here]",
    "See the [official guide]() for setup.",
    "See the [official guide](#) for setup.",
    "See the [official guide](TODO) for setup.",
    "See the [official guide](LINK_HERE) for setup.",
    "See the [official guide](https://example.com/guide) for setup.",
    "Download the template from www.example.com/template.",
    "Read more at https://yourwebsite.com/blog/queues.",
    "- Kafka: [DESCRIPTION]\n- RabbitMQ: [DESCRIPTION]",
    "| Broker | Notes |\n|---|---|\n| Kafka | [fill in] |\n| NATS | good |",
    "> [Quote from customer goes here]",
    'Customer quote: "[QUOTE]"',
    "Sign up for [PRODUCT NAME] today.",
    "Our team at [COMPANY NAME] can help.",
    "Published on [DATE].",
    "Call us at (555) 555-5555 or [phone number].",
    "<p>Read the [details](url-here).</p>",
    "The tool is available on [GitHub link].",
    "Add your own CTA here.",
    "[CTA: Book a demo]",
    "[Call to action]",
    "{{ cta_button }}",
    "Visit ${company_url} to learn more.",
    "Hello %NAME%, welcome.",
    "Hi {first_name}, here's the digest.",
    "Pricing: $[X] per month.",
    "It handles [NUMBER] messages per second.",
    "A [X]% improvement in latency.",
    "[Add statistic about queue adoption here]",
    "[Insert relevant case study]",
    "(Image: broker cluster diagram)",
    "![Alt text](image.png)",
    "![](placeholder.jpg)",
    "Footnote text to be added.[^TODO]",
    "[Author bio]",
    "[Meta description]",
    "[your-domain]/pricing",
    "Email: name@example.com",
    "The [relevant section] of the docs explains it.",
    "Contact [Name] at [Title] for details.",
    "We recommend [TOOL] for small teams.",
    "<!-- -->[TK]",
    "Kafka was released in 20XX.",
    "About the author: [Author Name] writes about infrastructure.",
    "Join [Number] other engineers on our newsletter.",
    "1. Install the client\n2. [Step two description]\n3. Restart",
    "Our customers in [City] love it.",
    '> "This changed how we ship." — [Customer Name], [Job Title]',
    "Start your free trial at [website URL].",
    "[Featured Image]",
    "[Chart showing consumer lag over a week]",
    "[Video embed: broker failover demo]",
    "[Embed tweet here]",
    "[Add a real-world example]",
    "[Explain the trade-off in more detail]",
    "[Need a source for this]",
    "[Confirm with product team]",
    "Contact sales at {{sales_email}}.",
    "Our team of {TEAM_SIZE} engineers.",
    "Visit ${base_url}/docs.",
    "Welcome, %FIRST_NAME%!",
    "Copyright 20XX.",
    "Read the [case study]().",
    "![Screenshot](screenshot.png)",
    "![image](path/to/image.jpg)",
    "Try it at https://www.yourdomain.com/signup.",
    '<a href="#">Read the benchmark</a>',
    "| Plan | Price |\n|---|---|\n| Pro | [PRICE] |",
    "Insert testimonial here.",
    "Tags: [keyword 1], [keyword 2]",
    "Related: [Internal link to queue basics]",
    "(Screenshot: the partition reassignment tool)",
    "Pricing is [TBD].",
    "Our [PRODUCT] integrates with Kafka.",
    "This post was written by [writer].",
]

LOOK_ALIKES = [
    "See the [official guide](https://kafka.apache.org/documentation/) for setup.",
    "Footnotes work like this.[^1]\n\n[^1]: https://www.rabbitmq.com/docs",
    "- [ ] Set up monitoring\n- [x] Pick a broker",
    "Use `{{ .Values.replicas }}` in the Helm chart.",
    "```\nname: {{ app_name }}\nimage: [IMAGE]\n```",
    "The config key is `<your-topic>`.",
    "Arrays are written `[1, 2, 3]` in JSON.",
    "A range such as [0, 1) excludes the upper bound.",
    "Refer to RFC 7231 [1] for status codes.\n\n[1]: https://www.rfc-editor.org/rfc/rfc7231",
    "The placeholder syntax {name} in Python's str.format is replaced at runtime.",
    "Type your name into the field marked Name.",
    "Keep a TODO list of operational chores.",
    "In Python, `TODO` comments are common; linters can flag them.",
    "The word lorem appears in typesetting history.",
    "Example domains such as example.com are reserved by RFC 2606 for documentation.",
    "Point your client at `https://example.com/api` while testing.",
    "He said [sic] the queue was empty.",
    "The survey [emphasis added] was short.",
    "Set the `max.poll.records` option [default: 500].",
    "Press [Ctrl] + [C] to stop the consumer.",
    "The mask XXX-XX-1234 hides all but the last four digits.",
    "Use the [Kafka quickstart][qs].\n\n[qs]: https://kafka.apache.org/quickstart",
    "Templates use `{{ product }}` placeholders, which Jinja fills in.",
    "The queue (a FIFO) keeps order.",
    "Write the date as [YYYY-MM-DD] in file names is a bad idea; use ISO 8601 without brackets.",
    "Our team is TBD-free: every decision is written down.",
    "The [Apache Kafka](https://kafka.apache.org) project started at LinkedIn.",
    "Markdown task lists use `- [ ]` for open items.",
    "Array notation `arr[i]` indexes from zero.",
    "Type the image name, for example `nginx:1.27`.",
    "You can put [Image] tags in alt text, but most readers never see them.",
    "In the template editor, a field such as [First Name] is replaced when the email is sent.",
    "The broker [sic] was down for hours, he wrote.",
    '"They [the vendor] never told us," one admin said.',
    "Notation: [a, b] is a closed interval.",
    "Use the [Confluent docs](https://docs.confluent.io) and [the Kafka book][kb].\n\n[kb]: https://www.oreilly.com/library/view/kafka-the-definitive/9781492043072/",
    "The NATS team [NATS] recommends JetStream. NATS is small.",
    "Press [Enter] to confirm, or [Esc] to cancel.",
    "Set retention to [7 days] in the console.",
    "> [!NOTE]\n> Back up the data directory first.",
    "In a mail merge template, a field such as [Company] is replaced for each recipient.",
    "Pandoc citations look like [@kreps2011].",
    "[Image courtesy of the Apache Software Foundation]",
    "(Photo by Jane Roe on Unsplash)",
    "See Figure 3 (chart of consumer lag).",
    "The TODO app in the examples uses Postgres.",
    "Email it to your team, not to yourself.",
    "The RFC reserves example.com for documentation, so never register it.",
    "Visit your site's settings page and open the Webhooks tab.",
    "Update [2026-03-02]: the bug was fixed in 3.7.1.",
    "Levels range from [0] to [3].",
    "The broker returns [] when the topic is empty.",
    "Logs look like [INFO] consumer started and [WARN] lag high.",
    "Use ${HOME} in shell scripts, not a tilde inside quotes.",
    "A 2x speedup in [Kafka 3.7](https://kafka.apache.org/blog) was reported.",
    "The field name is [name] in the JSON schema.",
    "Choose the [Standard] or [Premium] tier.",
    "The menu path is [Settings] > [Integrations].",
]


def _placeholders(snippet: str) -> list[str]:
    report = validate(BASE.replace("{X}", snippet))
    return [
        f.span.text if f.span else f.message for f in report.findings if f.code == "placeholder"
    ]


@pytest.mark.parametrize("snippet", SLOTS)
def test_an_unfilled_slot_is_a_placeholder(snippet: str) -> None:
    assert _placeholders(snippet) != [], snippet


@pytest.mark.parametrize("snippet", LOOK_ALIKES)
def test_a_legitimate_bracket_or_marker_is_not(snippet: str) -> None:
    report = validate(BASE.replace("{X}", snippet))
    assert report.approved, report.summary()


def test_a_slot_is_reported_at_its_own_offsets() -> None:
    content = BASE.replace("{X}", "Signed, [Your Name]")
    (finding,) = [f for f in validate(content).findings if f.code == "placeholder"]
    assert finding.span is not None
    assert content[finding.span.start : finding.span.end] == "[Your Name]"


def test_an_acronym_the_draft_uses_is_not_a_slot_but_an_unused_one_is() -> None:
    used = "The NATS docs [NATS] recommend JetStream. NATS is small."
    assert _placeholders(used) == []
    assert _placeholders("Sign up for [TOOL] today.") == ["[TOOL]"]
