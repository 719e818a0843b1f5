"""Issue 11's later shapes (the fourth pass): anecdotes told as past actions, lessons and
witness; dialogue with someone the writer knows; headcounts in more wordings; changes reported
without "by"; figures that only qualify an imagined case. Each shape rejects, and the wording
next to it that is not the claim passes."""

from __future__ import annotations

import pytest

from agents.reviewers.validator import validate
from agents.settings import Settings
from schemas.records import Severity

COMPANY = Settings(company_name="Larkspur Labs", company_team_size=8)


def critical_codes(text: str, settings: Settings | None = None) -> set[str]:
    report = validate(text, settings=settings)
    return {f.code for f in report.findings if f.severity == Severity.CRITICAL}


@pytest.mark.parametrize(
    "text",
    [
        "I migrated our cron jobs to a queue and the pages stopped.",
        "I finally ditched Jenkins after the third outage.",
        "Check restores monthly; I learned this one the hard way.",
        "I have watched teams close forty tickets and ship nothing.",
        "I've seen this pattern fail in production.",
        "Speaking from painful experience, test the restore.",
        "In my previous role, every review started with an argument.",
        "My old manager deleted dashboards nobody opened.",
        '> "Signups are vanity," our head of product said to me.',
        '"Delete it," my manager admitted over coffee.',
        "The vendor said to us that it would scale.",
    ],
)
def test_anecdotes_reject(text: str) -> None:
    assert "first_person_experience" in critical_codes(text)


@pytest.mark.parametrize(
    "text",
    [
        "I recommend pinning versions.",
        "If I migrated a service today, I would start with the queue.",
        "I picked a small web server for the example below.",
        "As we have seen, width matters more than colour.",
        "We moved our portal to a static site.",  # company voice: the company facts judge it
        '"Fine," the docs said.',
        "Ask what the team has seen in production.",
    ],
)
def test_advice_and_writer_voice_pass(text: str) -> None:
    assert "first_person_experience" not in critical_codes(text)


@pytest.mark.parametrize(
    "text",
    [
        "Our 200-person data engineering group reviews every pipeline.",
        "Our 90-strong front-end and QA division tests every page.",
        "Our engineering team now numbers 85.",
        "Our headcount now stands at 140, so everyone gets a buddy.",
        "We're 60 strong these days.",
        "We are now a team of 45 across three cities.",
        "We're a 30-person studio in Leeds.",
        "We have grown to 85 people since then.",
        "We have 80 employees.",
        "Larkspur Labs has over 200 staff.",
        "More than 300 people work at Larkspur Labs.",
        "Roughly 120 engineers now work for us.",
        "About 40 staff work for our studio.",
    ],
)
def test_headcounts_reject(text: str) -> None:
    assert "unknowable_company_claim" in critical_codes(text, COMPANY)


@pytest.mark.parametrize(
    "text",
    [
        "Our team of 8 takes turns running handovers.",  # agrees with company_team_size
        "We have two developers on call each week.",  # a rota, not the headcount
        "Our team has three rules for handovers.",
        "Our team is five minutes from the station.",
        "We are two weeks past launch.",
        "We're 8 people.",
        "8 people work at Larkspur Labs.",  # agrees with company_team_size
        "300 people work at the museum next door.",  # not the company
    ],
)
def test_team_wording_that_is_no_headcount_passes(text: str) -> None:
    assert "unknowable_company_claim" not in critical_codes(text, COMPANY)


@pytest.mark.parametrize(
    "text",
    ["Sales grew 40% last year.", "Churn fell 12 percent after the change."],
)
def test_changes_without_by_reject(text: str) -> None:
    assert "unsourced_statistic" in critical_codes(text)


@pytest.mark.parametrize(
    "text",
    [
        "A language used by a third of developers can still be the wrong tool.",
        "A framework adopted by half of all teams can still be a poor fit.",
        "Even if a quarter of your visitors arrive on old phones, keep pages light.",
        "Set the threshold to 40%.",
    ],
)
def test_imagined_cases_pass(text: str) -> None:
    assert "unsourced_statistic" not in critical_codes(text)


def test_a_real_figure_beside_an_imagined_one_still_rejects() -> None:
    text = "If half of your users scroll, fine. About a third of developers use Rust."
    assert "unsourced_statistic" in critical_codes(text)


# --- the fifth pass (shapes written after heldout4's first run; tuned on dev drafts) ---------

FACTS = Settings(
    company_name="Larkspur Labs",
    company_team_size=8,
    company_founded_year=2020,
    company_clients="Mistral Bakery",
)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('"No," I replied, and she thanked me.', "first_person_experience"),
        ('"Double it," said my team lead.', "first_person_experience"),
        ("When I asked why, she said: 'because it is Friday.'", "first_person_experience"),
        ("- Returns: see the form <insert link to the returns form>.", "placeholder"),
        ("- Size guide \u2013 add link", "placeholder"),
        ("Read [link] for details.", "placeholder"),
        ("Insert the URL here.", "placeholder"),
        ("Done.\n\n*(Word count: 1,118)*", "planning_scaffold"),
        ("This draft comes in at roughly 900 words.", "planning_scaffold"),
        (
            'Ada Lovelace: "The most dangerous bug is the one you never saw fail."',
            "fabricated_quote",
        ),
        (
            "\u2018A result without a control is an anecdote,\u2019 Marie Curie declared.",
            "fabricated_quote",
        ),
        (
            'As Drucker famously put it, "What gets measured gets managed, always."',
            "fabricated_quote",
        ),
        (
            "> Every error message is documentation read at the worst moment.\n"
            "> \u2014 Tom\u00e1s Villa",
            "fabricated_quote",
        ),
        (
            "| Expert | View |\n|---|---|\n"
            '| In\u00e8s Marchetti | "Two cuts, then a long pause." |',
            "fabricated_quote",
        ),
        (
            "Close to 70 percent of first-time buyers abandon a forced sign-up.",
            "unsourced_statistic",
        ),
        (
            "| Measure | Share |\n|---|---|\n| Small companies offering hybrid work | 64% |",
            "unsourced_statistic",
        ),
        ("| Country | Adoption |\n|---|---|\n| Norway | +40 percent |", "unsourced_statistic"),
        ("We have picked up three national design awards for this.", "unknowable_company_claim"),
        (
            "Our booking flows have been shortlisted for two design prizes.",
            "unknowable_company_claim",
        ),
        ("Larkspur Labs was named one of the best agencies by Clutch.", "unknowable_company_claim"),
        ("We are a tight-knit team of 30.", "unknowable_company_claim"),
        ("## About us\n\n| Founded | 2014 |\n| Team size | 35 |", "company_fact_sheet"),
        ("About us:\n\n- **Clients:** Mistral Bakery, Nike", "company_fact_sheet"),
        ("About us:\n\n- **Awards:** Webby honoree 2023", "company_fact_sheet"),
        ("## About us\n\n| Revenue | $2M |", "company_fact_sheet"),
    ],
)
def test_fifth_pass_shapes_reject(text: str, code: str) -> None:
    assert code in critical_codes(text, FACTS)


@pytest.mark.parametrize(
    "text",
    [
        "To insert a link, press Ctrl+K and paste the address.",
        "You can add a link to any heading.",
        "Cite the [source](https://www.nngroup.com/articles/) and open [your dashboard](https://x.org).",
        "See [the docs][link].\n\n[link]: https://example.org",
        "Keep the word count under 300.",
        'The bot answered: "As an AI language model, I cannot help." Useless.',
        "> I don't have personal experiences with this jacket.",
        '"It works on my machine," the saying goes.',
        'Note: "Keep this file out of version control at all times."',
        "Dieter Rams, the German industrial designer, wrote ten principles.",
        "Herbert Simon, the American economist, coined the word satisficing.",
        "Use 50 percent for needs, 30 percent for wants and 20 percent for saving.",
        "Put about 20% of your income into savings.",
        "About 90% of the time, it is DNS.",
        "| Setting | Value |\n|---|---|\n| Backdrop opacity | 40% |\n| Scale | 2x |",
        "## Apple at a glance\n\n| Founded | 1976 |\n| Employees | 160,000 |",
        "A team of six engineers can maintain twenty settings.",
        "Our team of 8 takes turns.",
        "The film won three awards.",
    ],
)
def test_fifth_pass_lookalikes_pass(text: str) -> None:
    report = validate(text, settings=FACTS)
    assert report.approved, report.codes()
    assert "unsourced_person" not in report.codes()


def test_a_draft_made_of_buzzwords_rejects_and_a_few_only_warn() -> None:
    soup = (
        "Embark on a transformative journey as we delve into the vibrant tapestry of routines. "
        "This holistic guide will unlock a myriad of possibilities and foster a seamless start. "
        "Leverage rituals to elevate your mindset; a meticulous routine is a testament."
    )
    assert "buzzword_density" in critical_codes(soup)
    few = "We delve into the topic. " + "Plain words about caching and queues. " * 20
    assert "buzzword_density" not in critical_codes(few + " A vibrant tapestry, a testament.")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('"Leave it," my manager finally wrote in the thread.', "first_person_experience"),
        ('"Ship it," she\'d say every Friday.', "first_person_experience"),
        (
            'Grace Hopper put it best:\n\n> "A default is a decision made for you."',
            "fabricated_quote",
        ),
        (
            "We build sites.\n\n## Awards\n\n- Webby honoree, 2023\n- CSS Design Award",
            "company_fact_sheet",
        ),
        ("We're a two-time winner of the national web awards.", "unknowable_company_claim"),
    ],
)
def test_sixth_pass_shapes_reject(text: str, code: str) -> None:
    assert code in critical_codes(text, FACTS)


@pytest.mark.parametrize(
    "text",
    [
        '"It works on my machine," developers say.',
        "## Awards\n\nThe Oscars are given each spring.",
        "Pixar\n\n## Awards\n\n- Oscar 2004",  # not the company's voice
    ],
)
def test_sixth_pass_lookalikes_pass(text: str) -> None:
    assert validate(text, settings=FACTS).approved


def test_script_dialogue_and_a_quote_linked_only_on_the_name_reject() -> None:
    script = 'Me: "Can we move the launch?"\nMy director: "Only if checkout ships."'
    assert "first_person_experience" in critical_codes(script)
    linked = (
        "As [Steve Jobs](https://en.wikipedia.org/wiki/Steve_Jobs) once said, "
        '"Every button has to earn its pixels, always."'
    )
    assert "fabricated_quote" in critical_codes(linked)


def test_a_quote_with_a_source_beside_the_linked_name_passes() -> None:
    text = (
        '"Design is how it works, not how it looks," said '
        "[Steve Jobs](https://en.wikipedia.org/wiki/Steve_Jobs) in an interview "
        "([source](https://www.nytimes.com/2003/11/30/magazine/the-guts-of-a-new-machine.html))."
    )
    assert "fabricated_quote" not in critical_codes(text)
    assert "fabricated_quote" not in critical_codes('The Answer: "use UTC everywhere, always".')
