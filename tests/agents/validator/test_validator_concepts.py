"""Issue 11, session 3: the validator's families widened by concept, not by phrase.

Each family's claims are tested in wordings of their own (written for this file, none from the
corpus), each beside look-alikes that must pass: company claims by kind against the company
facts (unconfirmed_company_claim), first-person episodes against first-person advice
(first_person_anecdote), quantitative claims about the world against figures about the draft's
own material (unsourced_quantity), truncation above back matter and in wrapped list items, and
the stock-phrase list. The truncation cases at the end port upstream's
test_content_validator_truncation.py (TestDetectTruncatedContent) in our own words.
"""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate
from agents.settings import Settings

FACTS = Settings.from_mapping(
    {
        "company_name": "Northwind Labs",
        "company_founded_year": "2016",
        "company_team_size": "14",
        "company_clients": "Harbor Bank, Lumen Health",
    }
)
PAD = (
    "Deploy previews make review cheaper because every branch gets a link. Keep the config in "
    "the repository so it is reviewed like code.\n\n"
)
END = "\n\nStart with one service and widen from there."
FAMILY_CODES = {
    "company_claim": {"unconfirmed_company_claim", "unknowable_company_claim"},
    "first_person": {"first_person_anecdote", "first_person_experience"},
    "unsourced_stats": {"unsourced_quantity", "unsourced_statistic", "vague_attribution"},
}

COMPANY = [
    (True, "Northwind Labs now has offices in Lisbon, Austin and Singapore."),
    (True, "We opened our second office in Manchester last spring."),
    (True, "Our headquarters are in Berlin, with a satellite studio in Porto."),
    (True, "We are ISO 27001 certified and SOC 2 Type II compliant."),
    (True, "Northwind Labs is a certified B Corp."),
    (True, "We became an AWS Advanced Consulting Partner in 2022."),
    (True, "We closed a $4M seed round led by Frontline Ventures."),
    (True, "Northwind Labs is backed by Y Combinator and Index Ventures."),
    (True, "We recently raised our Series A to grow the platform team."),
    (True, "We partnered with Stripe to bring instant payouts to our users."),
    (True, "Our partnership with Shopify lets merchants sync orders in real time."),
    (True, "Our revenue grew 40% year over year."),
    (True, "We grew 3x last year while keeping the same support team."),
    (True, "Annual recurring revenue passed the two-million mark in March."),
    (True, "More than 300 teams use Northwind Labs every day."),
    (True, "Over 1,200 customers rely on our scheduling tool."),
    (True, "Our customer base has doubled since January."),
    (True, "Brands like Patagonia and Allbirds run their stores on our platform."),
    (True, "We count Spotify among our clients."),
    (True, "Northwind Labs was founded in 2012 by two former bankers."),
    (True, "We have been in business for over fifteen years."),
    (True, "The team has grown to 45 people across three time zones."),
    (True, "Our 25 engineers ship to production twenty times a day."),
    (True, "We were named Agency of the Year at the 2023 Drum Awards."),
    (True, "Our platform processes 5 million events a day."),
    (True, "Northwind Labs serves customers in 40 countries."),
    (True, "We were featured in TechCrunch and Forbes this year."),
    (True, "We hold two patents on our matching engine."),
    (False, "We recommend keeping one office hours slot a week for support questions."),
    (False, "Northwind Labs was founded in 2016 to make scheduling less painful."),
    (False, "Our team of 14 works across two time zones."),
    (False, "We work with Harbor Bank and Lumen Health on their booking flows."),
    (False, "If you run offices in several countries, pick one time zone for the calendar."),
    (False, "Companies like Shopify publish their incident reviews, which is worth copying."),
    (False, "Tools such as Stripe and Adyen handle the card data for you."),
    (False, "We think a certification like SOC 2 is worth it once enterprise buyers ask for it."),
    (
        False,
        "Our customers often ask how to export their data; the export button is under Settings.",
    ),
    (False, "We raised the timeout to 30 seconds in the example below."),
    (False, "Funding rounds are public in most countries, so check the registry before you pitch."),
    (False, "We will partner you with a designer for the first sprint."),
    (False, "Our guide covers how to get ISO 27001 certified without a consultant."),
    (False, "We grew the buffer to 64 KB and the warnings stopped."),
    (False, "Since 2016 we have built booking tools for clinics."),
    (False, "Northwind Labs has been building scheduling software since 2016."),
]

EPISODES = [
    (
        True,
        "This summer I left Aberdeen to work on the billing team, and my first project was"
        " Stripe support.",
    ),
    (True, "I was working with one other intern on the payments integration."),
    (True, "Back in 2019, our team rewrote the importer over a long weekend."),
    (True, "Two years ago I inherited a codebase with no tests at all."),
    (True, "A few months back, a designer on my team asked why the grid kept breaking."),
    (True, "When I ran the numbers for a retail client, the cache saved them about $800 a month."),
    (True, "My colleague Priya spent three days chasing that memory leak."),
    (True, "The first time I deployed on a Friday, the pager went off at 2 a.m."),
    (True, "Our CTO pulled me aside after the demo and told me the numbers did not add up."),
    (True, "I remember sitting in a cramped office in Leeds, staring at a failing build."),
    (True, "We spent most of March moving the billing jobs to the new queue."),
    (True, "I once watched a junior engineer delete the production bucket by accident."),
    (True, "During my time at a fintech startup, we shipped twice a day."),
    (True, "Years ago, at a conference in Lisbon, someone showed me this trick."),
    (True, "I found someone to deploy it, and we were done by lunch."),
    (True, '"Just ship it," my lead said, so I did.'),
    (True, "Yesterday I sat down with the support team to go through the tickets."),
    (True, "I was on a call with a customer last Tuesday who had lost a week of data."),
    (True, "After I switched our staging cluster to spot instances, the bill dropped to $300."),
    (False, "I recommend pinning versions in the lockfile."),
    (False, "In my view, the simplest fix is to add an index on the foreign key."),
    (False, "I prefer small pull requests because they are easier to review."),
    (False, "We will look at three ways to cache the response."),
    (False, "If you have ever deployed on a Friday, you know the feeling."),
    (False, "I think most teams should start with a single queue."),
    (False, "We can see from the output that the loop runs twice."),
    (False, "Let's say your team spends three days on a migration; plan for five."),
    (False, "Imagine a designer asks why the grid keeps breaking."),
    (False, "When you run the numbers, the cache pays for itself."),
    (False, "I have written this guide for people new to Postgres."),
    (False, 'We use the term "tenant" for a customer account in this post.'),
    (False, "I'd suggest trying the CLI before the dashboard."),
    (False, "First we create the table, then we add the trigger."),
    (False, "Here I show the config I use for new projects."),
]

QUANTITIES = [
    (True, "Roughly two thirds of small shops still reconcile by hand."),
    (True, "Half of all outages start with a config change."),
    (True, "Remote teams ship twice as fast as co-located ones."),
    (True, "Mobile traffic has doubled since 2020."),
    (True, "Seven in ten shoppers abandon a cart when shipping is a surprise."),
    (True, "Studies show that code review catches most defects before release."),
    (True, "According to recent research data, digital marketing is more cost-effective."),
    (True, "Experts agree that a third of cloud spend is wasted."),
    (True, "The average developer loses 4.2 hours a week to flaky tests."),
    (True, "Companies that adopt CI see a 30 percent drop in incidents."),
    (True, "Page speed improves conversion by as much as 7%."),
    (True, "Nine out of ten startups fail within five years."),
    (True, "Email still returns $36 for every dollar spent."),
    (True, "Over 60% of consumers prefer to buy from brands they trust."),
    (True, "A quarter of all support tickets are password resets."),
    (True, "Research suggests teams with on-call rotations burn out three times faster."),
    (False, "Set the timeout to 30 seconds and the retries to three."),
    (False, "A third of the examples below use the async client."),
    (False, "Split the budget in half: one part for hosting, one for tooling."),
    (
        False,
        "The [2024 Stack Overflow survey](https://survey.stackoverflow.co/2024/) found that 62%"
        " of developers use Python.",
    ),
    (False, "Doubling the batch size halves the number of round trips."),
    (False, "The function runs twice, once for each key."),
    (False, "Version 2.1 adds three new flags."),
    (False, "In our example, 40% of requests hit the cache."),
]


def _criticals(text: str, settings: Settings = FACTS) -> set[str]:
    report = validate(PAD + text + END, settings=settings)
    return {f.code for f in report.findings if f.severity.value == "critical"}


@pytest.mark.parametrize(
    ("family", "bad", "text"),
    [("company_claim", *c) for c in COMPANY]
    + [("first_person", *c) for c in EPISODES]
    + [("unsourced_stats", *c) for c in QUANTITIES],
)
def test_concept(family: str, bad: bool, text: str) -> None:
    found = _criticals(text)
    if bad:
        assert found & FAMILY_CODES[family], f"{family} not caught: {text!r} ({found})"
    else:
        assert not found, f"look-alike rejected: {text!r} ({found})"


@pytest.mark.parametrize(
    "text",
    [
        "Northwind Labs was founded in 2016 and has been building scheduling tools since then.",
        "Our team of 14 works with Harbor Bank and Lumen Health.",
        "The team has grown to 14 people since 2016.",
    ],
)
def test_company_voice_consistent_with_the_facts_passes(text: str) -> None:
    assert not _criticals(text)


def test_company_kinds_no_setting_confirms_are_critical_even_with_all_facts_set() -> None:
    for text in ("We have offices in Lisbon.", "We are SOC 2 compliant.", "We raised $3M."):
        assert "unconfirmed_company_claim" in _criticals(text), text


def test_named_client_checked_against_company_clients() -> None:
    assert not _criticals("We count Harbor Bank among our clients.")
    assert "unconfirmed_company_claim" in _criticals("We count Monzo among our clients.")


def test_team_growth_checked_against_team_size() -> None:
    assert "unconfirmed_company_claim" in _criticals("Our team has grown to 45 people.")
    no_size = Settings.from_mapping({"company_name": "Northwind Labs"})
    assert "unconfirmed_company_claim" in _criticals("Our team has grown to 14 people.", no_size)


def test_companies_like_x_needs_the_company_voice() -> None:
    assert not _criticals("Companies like Amazon invested heavily in warehouse robots.")
    assert _criticals("Brands like Patagonia run their stores on our platform.")


def test_since_we_started_is_a_point_in_time_not_an_episode() -> None:
    assert "first_person_anecdote" not in _criticals(
        "We have kept every ticket since we started in 2016."
    )


def test_sourced_quantity_passes() -> None:
    linked = (
        "A quarter of all support tickets are password resets ([report](https://example.org/r))."
    )
    assert "unsourced_quantity" not in _criticals(linked)


# --- truncation ---


@pytest.mark.parametrize(
    "ending",
    [
        "\n\n\u2013 Olly, the CTO",
        "\n\n*Team: Ioan, Josh*",
        "\n\n[desks-2015]: /2015/10/14/engineering-desks/",
        "\n\n&nbsp;\n&nbsp;",
        "\n\n<br/>",
    ],
)
def test_back_matter_after_a_finished_sentence_passes(ending: str) -> None:
    assert validate(PAD + "The last sentence is finished." + ending, settings=Settings()).approved


@pytest.mark.parametrize(
    "ending",
    ["\n\n\u2013 Olly, the CTO", "\n\n[desks-2015]: /2015/10/14/engineering-desks/", "\n\n&nbsp;"],
)
def test_cut_above_back_matter_is_caught(ending: str) -> None:
    text = PAD + "The deploy step copies the bundle and then the wor" + ending
    assert "broken_ending" in {f.code for f in validate(text, settings=Settings()).findings}


def test_wrapped_list_item_is_judged_as_one_item() -> None:
    wrapped = (
        "See also:\n\n- `queue.py` \u2014 the service every surface calls\n"
        "- `watch.py` \u2014 detects the queue wedging\n  after we hand a post off"
    )
    report = validate(PAD + wrapped, settings=Settings())
    assert report.approved


@pytest.mark.parametrize(
    "last",
    [
        "Set it with `multiqa settings set max_cha",
        "The **important part is the retr",
        "Read [the second coming of\nJava](http://example.org/2011/10/the-second-coming-of-j",
    ],
)
def test_unbalanced_markup_on_the_last_line_is_a_cut(last: str) -> None:
    assert "broken_ending" in {f.code for f in validate(PAD + last, settings=Settings()).findings}


# Ported from upstream test_content_validator_truncation.py, TestDetectTruncatedContent: the
# same shapes (cut mid-word, at a heading, in a link URL or text, in an HTML tag or a quote, hidden
# in front of a Sources/References/Further Reading list) in our own wording.
UPSTREAM_CUT = [
    "## Read scaling\n\nReplicas help with reads, but writes need a different shape for th",
    "The intro paragraph ends cleanly.\n\n### Wha",
    "See [the forum thread](https://forum.example.org/t/sa",
    "More in [the guide to conte",
    'Body text.\n\n<h3 style="color: #94a3b8; margin-bottom: 1e',
    "people kept asking in the same thread where someone used to just say 'ye",
    "## Next steps\n\nTest both workloads apart. When we looked at the vendor's LocateA\n\n"
    "## Sources\n- <https://example.org/discussions/97>\n",
    "A sentence cut off at th\n\n## References\n1. <https://example.org/z>\n",
    "A sentence cut off at th\n\n### Further Reading\n1. <https://example.org/z>\n",
    "Done here.\n\n## Sources",
    "## Steps\n- First do this.\n- Then the script will",
]
UPSTREAM_FINISHED = [
    "All done. The end.",
    "## Sources\n\n- <https://example.org/a>\n- <https://example.org/b>",
    "Ends with a fence:\n\n```python\nx = 1\n```",
    "| model | score |\n| --- | --- |\n| gemma | 82 |",
    "The end, *emphasised*.",
    'She said "done."',
    "Final line.\n\n---",
    "Ready to start?",
    "## Closing\n\nBuild for that.\n\n## Sources\n- <https://example.org/a>\n",
    "## Steps\n- First do this.\n- Then do that.",
]


@pytest.mark.parametrize("text", UPSTREAM_CUT)
def test_upstream_truncation_shapes_are_caught(text: str) -> None:
    report = validate(PAD + text, settings=Settings())
    assert {"broken_ending", "unclosed_code_fence"} & {f.code for f in report.findings}
    assert not report.approved


@pytest.mark.parametrize("text", UPSTREAM_FINISHED)
def test_upstream_finished_endings_pass_truncation(text: str) -> None:
    codes = {f.code for f in validate(PAD + text, settings=Settings()).findings}
    assert not codes & {"broken_ending", "unclosed_code_fence", "possibly_truncated"}


# --- filler (stock phrases from public lists, see _style) ---


def test_stock_phrases_warn_and_a_draft_made_of_them_is_rejected() -> None:
    one = validate(PAD + "It's worth noting that caching plays a crucial role here." + END)
    assert one.approved and "filler_phrase" in one.codes()
    many = (
        "In the realm of deployment, it's important to note that previews play a pivotal role. "
        "Let's delve into the rich tapestry of options. First and foremost, their value cannot "
        "be overstated, and it is more crucial than ever to harness the power of automation."
    )
    report = validate(PAD + many + END)
    assert not report.approved


# --- look-alikes found on public text (eval/public, tuning split) ---


def test_blockquote_signed_with_a_reference_is_sourced() -> None:
    text = (
        PAD
        + "> All three agents claimed the same number.\n> \u2014 Example-Org/project#378\n\nMore."
    )
    assert "fabricated_quote" not in validate(text, settings=Settings()).codes()
    unsigned = PAD + "> All three agents claimed the same number.\n> \u2014 Dana Whitfield\n\nMore."
    assert "fabricated_quote" in validate(unsigned, settings=Settings()).codes()


def test_a_quoted_label_in_a_table_row_is_not_speech() -> None:
    table = '| Panel | Shows |\n|---|---|\n| Grafana Hardware | "GPU Scheduler" row |\n'
    assert "fabricated_quote" not in validate(PAD + table, settings=Settings()).codes()


def test_metadata_lines_after_the_body_are_back_matter() -> None:
    done = PAD + "The body is finished.\n\n**Last updated:** 2026-05-08\n**Owner:** Matt (Acme)\n"
    assert validate(done, settings=Settings()).approved
    cut = PAD + "The body stops in the mid\n\n**Last updated:** 2026-05-08\n"
    assert "broken_ending" in validate(cut, settings=Settings()).codes()


def test_founding_year_is_not_the_time_of_an_episode() -> None:
    text = "Northwind Labs was founded in 2016, and our team of 14 looks after the sites we built."
    assert not _criticals(text)


def test_funding_told_as_a_gerund() -> None:
    assert "unconfirmed_company_claim" in _criticals(
        "Since closing our seed round, we ship weekly."
    )


COMPANY_FIGURES = [
    (True, "Northwind Labs has helped more than 80 clinics move their bookings online."),
    (True, "Our clients range from local bakeries to Harbor Bank and the NHS."),
    (True, "Over the past eight years, we have delivered more than 300 projects."),
    (
        True,
        "Northwind Labs was recently recognised as one of the fastest-growing agencies in the"
        " region.",
    ),
    (True, "Our platform now handles over two million bookings every month."),
    (True, "We've worked with clients such as Monzo, Deliveroo and Harbor Bank."),
    (
        True,
        "With a team of more than 50 specialists, Northwind Labs covers design, build and support.",
    ),
    (True, "Northwind Labs is proud to be a Google Premier Partner."),
    (True, "Since our founding in 2009, we have focused on healthcare."),
    (True, "We have grown our headcount to 30 this year."),
    (True, "Our 98% client retention rate speaks for itself."),
    (True, "Our customers save an average of 12 hours a week."),
    (True, "We\u2019re trusted by over 500 businesses across the UK."),
    (True, "Northwind Labs operates from three offices in the UK and one in Lisbon."),
    (True, "Our Lisbon office opened in 2023."),
    (True, "Last year Northwind Labs turned over £2.4 million."),
    (True, "We were acquired by Globex in 2022."),
    (True, "We hit profitability in our second year."),
    (True, "Our NPS score is 72, well above the industry average."),
    (True, "We've been featured by the BBC and The Guardian."),
    (True, "Every one of our 40 developers is AWS certified."),
    (True, "Northwind Labs has a 4.9-star rating on Clutch from 120 reviews."),
    (False, "Our team recommends testing bookings on a slow phone before launch."),
    (False, "We're a small team, so we answer support emails ourselves."),
    (False, "Northwind Labs builds booking tools for clinics."),
    (False, "We help clinics move their bookings online."),
    (False, "Our clients usually ask for a reminder email the day before."),
    (False, "Clients such as dental practices need reminders more than gyms do."),
    (False, "If you have offices in several countries, pick one time zone."),
    (False, "Most agencies claim a 98% retention rate; ask for the list of clients instead."),
    (False, "We are based on the idea that small sites should load fast."),
]


@pytest.mark.parametrize(("bad", "text"), COMPANY_FIGURES)
def test_company_figures_and_events(bad: bool, text: str) -> None:
    found = _criticals(text)
    if bad:
        assert found & FAMILY_CODES["company_claim"], f"not caught: {text!r} ({found})"
    else:
        assert not found, f"look-alike rejected: {text!r} ({found})"


def test_company_figure_needs_the_company_as_subject() -> None:
    bls = "The [US Bureau of Labor Statistics](https://www.bls.gov/) counts 35 percent of firms."
    assert "unconfirmed_company_claim" not in _criticals(bls)
    assert not _criticals("We have two developers on call at weekends.")
    assert "unconfirmed_company_claim" in _criticals("We have delivered 300 projects.")


EPISODES_2 = [
    (
        True,
        "When I was consulting for a logistics firm, their dispatch team kept a spreadsheet"
        " of every late van.",
    ),
    (True, "The CFO of a retailer I advised once told me their returns cost more than shipping."),
    (True, "I spent three evenings rebuilding our home server after the disk died."),
    (True, "My first manager taught me to write the rollback plan before the deploy plan."),
    (True, "Last quarter we cut our cloud bill by moving batch jobs to spot instances."),
    (True, "On my last project, the client insisted on weekly demos, and it saved us twice."),
    (True, "At a previous job, our on-call rotation burned out two engineers in six months."),
    (
        True,
        "I've lost count of the times a missing index took down a checkout page I was"
        " responsible for.",
    ),
    (
        True,
        "We learned this the hard way when a migration locked the orders table for forty minutes.",
    ),
    (True, "My daughter's school uses a booking system that fails every September."),
    (True, "A friend who runs a bakery asked me why her site was slow."),
    (True, "In 2021 I moved my freelance invoicing from spreadsheets to an accounting app."),
    (True, "Our lead designer, Sam, pushed back on the redesign until we had user interviews."),
    (True, "I still remember the look on the product owner's face when the demo crashed."),
    (True, "I sat in on a support shift and heard the same complaint eleven times."),
    (False, "I've found that small pull requests get reviewed faster."),
    (False, "We recommend that you write the rollback plan first."),
    (False, "As we saw in the previous section, the index speeds up the lookup."),
    (False, "Earlier we created a table called orders; now we add an index to it."),
    (False, "I'll show you how to move batch jobs to spot instances."),
    (False, "My advice is to start with one queue and split it later."),
    (False, "Our on-call guide says to page the owner of the service first."),
    (False, "When a migration locks a table, the fix is to add the column without a default."),
    (False, "A manager who asks for the rollback plan first saves everyone time."),
]

QUANTITIES_2 = [
    (True, "Most shoppers leave a site that takes more than three seconds to load."),
    (True, "Only one in five small businesses has a tested disaster recovery plan."),
    (True, "Teams that write tests first ship 40 percent fewer bugs."),
    (True, "Email open rates have fallen by a third in the last five years."),
    (True, "The majority of data breaches involve a stolen password."),
    (True, "Developers spend almost half their time reading code rather than writing it."),
    (True, "Mobile now accounts for nearly 60% of all web traffic."),
    (True, "Industry surveys put the cost of downtime at $5,600 per minute."),
    (True, "Four out of five developers say they prefer dark mode."),
    (True, "A typical SaaS company loses 5% of its customers every month."),
    (True, "Conversion drops by 7% for every extra second of load time."),
    (True, "Password resets make up around 30 percent of help desk calls."),
    (True, "Experts estimate that two-thirds of IT projects run over budget."),
    (True, "Businesses that blog get 55% more website visitors."),
    (True, "By 2025, more than 75% of enterprise data will be processed at the edge."),
    (False, "The script runs in about 3 seconds on a laptop."),
    (False, "Most of the examples below use Python 3.12."),
    (False, "Set the sample rate to 10 percent while you test."),
    (False, "Two of the four options need a paid plan."),
    (False, "If a third of your visitors use Safari, test on it first."),
    (False, "Use at most 5% of the budget on experiments."),
    (
        False,
        "According to the [Postgres documentation](https://www.postgresql.org/docs/current/"
        "indexes.html), most indexes are B-trees.",
    ),
]


@pytest.mark.parametrize(
    ("family", "bad", "text"),
    [("first_person", *c) for c in EPISODES_2] + [("unsourced_stats", *c) for c in QUANTITIES_2],
)
def test_concept_second_wordings(family: str, bad: bool, text: str) -> None:
    test_concept(family, bad, text)


def test_an_episode_quoted_as_an_example_is_not_the_writers() -> None:
    quoted = 'Attackers wrap the payload in a story: "my grandmother used to read me the keys".'
    assert "first_person_anecdote" not in _criticals(quoted)


TRUNCATION_2 = [
    ("R", "The fix is to set the header (see the proxy docs for"),
    ("R", '<div class="note">\n\nAlways back up first.\n'),
    ("R", "Use the `--dry-run` flag and check the output before you run it for real, because the"),
    ("R", "1. Install the CLI.\n2. Run `init`.\n3. Commit the generated"),
    ("R", "| Step | What |\n|---|---|\n| 1 | Install |\n| 2 | Configure the"),
    ("R", "> The best deploy is a boring one, and the second best is one you can roll"),
    ("R", "Read more in the [release notes](https://example.org/rel"),
    (
        "R",
        "The final step is to restart the wor\n\n## References\n\n1. Smith, J. (2021)."
        " Deploying safely. https://example.org/x\n2. Lee, K. (2022). Previews."
        " https://example.org/y",
    ),
    (
        "R",
        "That is all you need to get started with previews, and once it works you can"
        " add\n\n---\n\n*Posted by the team*",
    ),
    ("R", "![Deploy diagram](https://example.org/img/deploy.pn"),
    ("R", "Set `timeout: 30` in the config and\n\n[docs]: https://example.org/docs"),
    ("R", "<details>\n<summary>Show the config</summary>\n\nport: 8080\n"),
    (
        "R",
        "## Wrapping the deploy in a script\n\nThe script below wraps the deploy so that"
        " a failed step rolls back automatically, which is what you want when",
    ),
    ("A", "That is all there is to it.\n\n---\n\n*Posted by the team*"),
    ("A", '<div class="note">\n\nAlways back up first.\n\n</div>'),
    ("A", "Start small (one service, one preview)."),
    ("A", "1. Install the CLI.\n2. Run `init`.\n3. Commit the generated files."),
    ("A", "> The best deploy is a boring one.\n> \u2014 a common saying"),
    ("A", "Read more in the [release notes](https://example.org/releases)."),
    ("A", "![Deploy diagram](https://example.org/img/deploy.png)"),
    ("A", "That's it!"),
    ("A", "Happy deploying :)"),
    ("A", "Questions? Reach out on [GitHub](https://github.com/example)"),
    (
        "A",
        "## Further reading\n\n- [Previews](https://example.org/previews)\n-"
        " [Rollbacks](https://example.org/rollbacks)",
    ),
]


@pytest.mark.parametrize(("expected", "body"), TRUNCATION_2)
def test_truncation_second_wordings(expected: str, body: str) -> None:
    codes = {f.code for f in validate(PAD + body, settings=Settings()).findings}
    cut = codes & {"broken_ending", "unclosed_code_fence", "possibly_truncated"}
    assert bool(cut) == (expected == "R"), (body, codes)


def test_a_paragraph_of_stock_phrases_is_rejected() -> None:
    made_of_them = (
        "In the fast-paced world of e-commerce, it's worth noting that product pages play a "
        "crucial role. Fear not: this comprehensive guide empowers you to sell more. In the "
        "realm of search, a good page is the key to success. In summary, write well."
    )
    report = validate(PAD + made_of_them + END)
    assert not report.approved
    assert all(f.code in {"filler_phrase", "buzzword_density"} for f in report.findings)


def test_a_code_span_wrapped_over_two_lines_is_balanced() -> None:
    wrapped = PAD + "Run `multiqa\nmodels` to list them, then pick one."
    assert "broken_ending" not in validate(wrapped, settings=Settings()).codes()
    assert "broken_ending" in validate(PAD + "Run `multiqa models", settings=Settings()).codes()


def test_we_need_is_not_a_past_action() -> None:
    assert not _criticals("Last year's guide is out of date, so we need a new index here.")


def test_years_in_words_are_judged_against_the_founding_year() -> None:
    assert not _criticals("We have run the platform on our own servers for four years now.")
    assert "unconfirmed_company_claim" in _criticals("We have run our own servers for 40 years.")
