"""The precise-figure rule: digits outside dates, times and period labels are figures."""

import pytest
from observations_svc.domain.engagement_figures import states_precise_figure


@pytest.mark.parametrize(
    "text",
    [
        "42% of trial users converted",
        "checkout is 3.5x faster",
        "$1.2M in annual revenue",
        "1,200 users signed up",
        "3 customers asked for SSO",
        "churn fell 7 percent",
        "in 2025 we hired 5 engineers",
        "2026 users",
        "March 2026 sales reached 40k",
    ],
)
def test_numbers_that_are_not_dates_are_figures(text):
    assert states_precise_figure(text)


@pytest.mark.parametrize(
    "text",
    [
        "users prefer the new onboarding",
        "three customers asked for SSO",
        "launched on 2026-03-05",
        "launched on 2026-03-05T09:30:00Z",
        "signed on 5/3/2026",
        "decided on 5 March 2026",
        "decided on March 5, 2026",
        "planned for March 2026",
        "since 2019 the team has grown",
        "the plan for 2024-2025",
        "from 2019 to 2021 they used Oracle",
        "the Q3 launch slipped",
        "reviewed in week 3",
        "the 3rd interview went well",
        "standup at 9:30 am",
        "the 9am call",
    ],
)
def test_dates_times_and_labels_are_not_figures(text):
    assert not states_precise_figure(text)
