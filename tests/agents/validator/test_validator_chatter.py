"""Issue 11, session 4: leaked model output as a concept: whatever the model said to the person
who asked for the text, or to itself, or about the text, rather than to the reader (_chatter's
model_talk, _meta's text_metadata, and the widened reasoning tags, role markers and openings of
_leaks). Each wording was written for this file (none from a corpus), beside look-alikes that
must pass: a reader addressed ("let us know in the comments", "in this post I'll compare"),
signposts, published editor's notes, advice about drafts, outlines, tone and audience, and
quoted refusals.
"""

from __future__ import annotations

import pytest

from agents.reviewers.validator import rules, validate

BASE = (
    "# Choosing a message queue\n\nPicking a queue is mostly about the guarantees your consumers "
    "need.\n\n{X}\n\n## Operations\n\nRun the broker where your team already has "
    "monitoring.\n\nIn short, pick the simplest system that gives you the guarantees you need.\n"
)
LEAK_CODES = {r.code for r in rules() if r.family == "leaked_output"}

LEAKS = [
    "Here's a revised version of the section with the changes you asked for.",
    "Here is an updated draft that addresses your feedback:",
    "Sure! Below is a blog post about message queues.",
    "Certainly, here's the article.",
    "I hope you find this article useful! Let me know if you want any changes.",
    "Let me know if you'd like me to expand any section.",
    "If you'd like, I can also write a shorter version for social media.",
    "Would you like me to add a section on Kafka Streams?",
    "I can adjust the tone if needed.",
    "Feel free to ask if you need more examples.",
    "As requested, I've kept the article under 800 words.",
    "As you requested, the post focuses on small teams.",
    "I've rewritten the introduction to be more engaging.",
    "I have revised the draft to address the reviewer's comments.",
    "I've made the following changes:\n- Shortened the intro\n- Added a table",
    "Note: I couldn't verify the latest pricing, so please double-check.",
    "Note to editor: confirm the version numbers before publishing.",
    "Editor's note: replace this paragraph with the final benchmark.",
    "(Note to self: add a diagram here later.)",
    "I apologize, but I can't browse the web to check current prices.",
    "I'm sorry, but I cannot provide real-time data.",
    "I'm unable to access the links you provided.",
    "I cannot fulfil this request.",
    "Let me start by outlining the main sections.",
    "I need to make sure the article covers ordering and replay.",
    "Now I'll write the conclusion.",
    "Wait, I should double-check the claim about ordering.",
    "<reflection>The draft is too long.</reflection>",
    "<inner_monologue>Make it punchier.</inner_monologue>",
    "[THINKING] The user wants a comparison. [/THINKING]",
    "<|assistant|>",
    "### Assistant:\nHere you go.",
    "**Meta Description:** Learn how to pick a message queue.",
    "SEO Keywords: message queue, kafka, rabbitmq",
    "Focus keyphrase: message queue",
    "Word Count: ~1,200",
    "Title options:\n1. Choosing a Queue\n2. Queue Wars",
    "Suggested title: Picking the Right Queue",
    "Estimated reading time: 6 minutes (approx. 1,300 words)",
    "## Outline\n1. Intro\n2. Guarantees\n3. Conclusion",
    "Introduction (150 words): explain why queues matter.",
    "Section 2 - Guarantees (300 words)",
    "Tone: friendly, authoritative. Audience: backend developers.",
    "Thought process: the reader is a backend developer.",
    "Draft v2 (incorporating feedback)",
    "This revised version is more concise and flows better.",
    "The article now includes a section on operations, as you asked.",
    "In this response, I will compare three brokers.",
    "Okay, here's the rewritten post with a stronger opening.",
    "Great question! Message queues are...",
    "Absolutely! Here's a detailed guide.",
    "Hope this helps!",
    "Happy to help with any further revisions.",
    "[End of article]",
    "---\nEnd of draft.",
    "Here's what I changed: the intro is shorter.",
    "Changes made: removed the filler paragraph, added links.",
    "Key points to cover: ordering, replay, back-pressure.",
    "Would you like me to turn this into a Twitter thread as well?",
    "If you want, I can add code samples for each broker.",
    "I could also write a version aimed at managers if that helps.",
    "Hope that helps, and good luck with the launch!",
    "Let me know what you think of the new structure.",
    "I've tightened the conclusion and removed the repetition, as you asked.",
    "I have shortened each section to keep the word count under 900.",
    "Per your instructions, the article avoids vendor names.",
    "Based on your feedback, the intro now leads with the problem.",
    "My previous draft overused the word robust.",
    "I apologise for the confusion in the earlier version.",
    "I'm sorry, but I can't verify these links.",
    "I am not able to browse current pricing pages.",
    "Note to self: check whether NATS supports replay.",
    "**Note:** I couldn't find a source for the throughput claim.",
    "Editor's note: please confirm the benchmark numbers.",
    "I'll keep the tone conversational throughout the article.",
    "Next, I'll write a short section on monitoring.",
    "I need to add a conclusion that ties back to the intro.",
    "Hmm, that's not right. Let me fix the ordering claim.",
    "Actually, I should mention back-pressure earlier.",
    "<thoughts>Readers want a decision.</thoughts>",
    "[REASONING] Compare three brokers. [/REASONING]",
    "**User:** write a blog post about queues",
    "Claude: Here is the draft.",
    "**Focus Keyword:** message queue",
    "- Secondary keywords: kafka, broker, event stream",
    "Excerpt: A practical guide to picking a queue.",
    "Suggested slug: choosing-a-message-queue",
    "## Content outline\n- Why queues\n- Guarantees",
    "1. Intro (100-150 words)\n2. Guarantees (300 words)",
    "Audience: CTOs at startups\nGoal: drive demo sign-ups",
    "Chain of thought: the user wants a comparison.",
    "Topics to cover: retention, ordering, cost.",
    "Draft 3",
    "(Revised draft, incorporating the reviewer's comments)",
    "(incorporating your feedback)",
    "[End of post]",
    "Good question! The short answer is yes.",
    "OK, here's a tighter version.",
    "Got it. I've cut the second section.",
    "This updated draft reads better and is more concise.",
]

LOOK_ALIKES = [
    "Here's a simple rule: pick the queue your team can operate.",
    "Here is the configuration we recommend for small clusters.",
    "Let me be clear: ordering is not free.",
    "Let me explain with an example: a payment consumer retries.",
    "I need to stress that idempotency matters.",
    "First, install the client library.",
    "I hope this pattern saves you a failed deploy.",
    "Let us know in the comments what broker you use.",
    "Feel free to copy the config below into your project.",
    "Note: the default retention is seven days.",
    "Editor's note: this article was updated in March to cover Kafka 4.",
    "The assistant role in the OpenAI API is the model's reply.",
    "Word count matters less than clarity in docs.",
    "Write a meta description under 160 characters for each page.",
    "The outline of a good runbook: symptoms, checks, fixes.",
    "As requested by many readers, this post covers NATS too.",
    "We apologise for the outage last week; the root cause was a full disk.",
    "Sorry, Kafka: for small jobs a database queue is enough.",
    "The model replied, \"I'm sorry, but I can't help with that,\" the refusal the test expects.",
    "Would you like a faster broker? Measure first.",
    "Now it's time to talk about consumers.",
    "Wait for the broker to report healthy before starting consumers.",
    "Thinking in streams takes practice.",
    "The changes made to the protocol in 3.0 removed ZooKeeper.",
    "Key points: keep consumers idempotent and monitor lag.",
    "Title: Choosing a queue, a talk at a local meetup.",
    "The tone of an incident review should be blameless.",
    "Great question, and one we hear often: should you use Kafka for everything?",
    "Reading time: 6 minutes",
    "This revised edition of the guide covers Kafka 4.",
    "If you want to replay events, keep them for at least a week.",
    "I could write a whole post on consumer groups; here is the short version.",
    "I hope that helps you decide, but measure first.",
    "We're sorry to see the free tier go, but the reasons are sound.",
    "I can't recommend Kafka for a team of two.",
    "The audience for this runbook is the on-call engineer.",
    "Tone matters in incident reviews: keep it blameless.",
    "Our goal: no message lost, ever.",
    "The excerpt of the log below shows the rebalance.",
    "Draft your runbook before the incident, not during it.",
    "The end of the article has a checklist.",
    "Good question to ask your vendor: what happens on a partition?",
    "The user: a developer with a laptop and a deadline.",
    "Reading it again, the second section needs a diagram, so we added one.",
    "Chapter 3 covers replay.",
    "1. Choose a broker\n2. Set retention\n3. Monitor lag",
    "Actually, the default is seven days, not three.",
    "Wait until the consumer group is stable before deploying.",
    "Keep the summary short (100 words) for the changelog.",
    "Next, I'll show how to set up a consumer group.",
    "In this post, I'll compare three brokers.",
    "Based on your workload, pick the broker with the guarantees you need.",
    "Let me know your thoughts in the comments below.",
    "Version 2 of the protocol removed the leader election step.",
    "I've updated the benchmark numbers for Kafka 4 in the table below.",
    "As a writer, I learned to cut the first paragraph of every draft.",
]


def _leaks(snippet: str) -> list[str]:
    report = validate(BASE.replace("{X}", snippet))
    return [f.code for f in report.findings if f.code in LEAK_CODES]


@pytest.mark.parametrize("snippet", LEAKS)
def test_model_output_not_meant_for_the_reader_is_a_leak(snippet: str) -> None:
    assert _leaks(snippet) != [], snippet


@pytest.mark.parametrize("snippet", LOOK_ALIKES)
def test_writing_addressed_to_the_reader_is_not(snippet: str) -> None:
    report = validate(BASE.replace("{X}", snippet))
    assert report.approved, report.summary()


def test_chatter_quoted_as_an_example_is_not_a_leak() -> None:
    quoted = 'A model that answers "Would you like me to add a section?" is asking its user.'
    assert _leaks(quoted) == []
    assert _leaks("Would you like me to add a section?") == ["model_talk"]


def test_a_leak_in_the_title_is_found() -> None:
    report = validate(BASE.replace("{X}", "Fine."), title="Sure! Here is your revised post")
    assert not report.approved


def test_one_brief_label_is_a_line_two_are_an_echoed_brief() -> None:
    assert _leaks("Goal: no message lost.") == []
    assert _leaks("Goal: no message lost.\nAudience: on-call engineers.") == ["text_metadata"]
