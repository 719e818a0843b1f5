"""The worker's flow control keeps the events queued for its agents when the flow resumes after a
recovery (streams.runtime.app.KeepEventsOnResume: Faust's own empties them, and a busy agent then
never sees events the consumer has already passed)."""

from __future__ import annotations

from types import SimpleNamespace

from mode.utils.queues import FlowControlEvent, FlowControlQueue

from streams.runtime.app import KeepEventsOnResume, make_faust_app
from tests.streams.stream_helpers import stream_config


def queues(flow: FlowControlEvent) -> tuple[FlowControlQueue[int], FlowControlQueue[int]]:
    # What Faust makes: every agent's channel queue and the table manager's changelog queue are
    # managed by the app's flow control, cleared on resume.
    agent = FlowControlQueue[int](maxsize=100, flow_control=flow, clear_on_resume=True)
    changelog = FlowControlQueue[int](maxsize=100, flow_control=flow, clear_on_resume=True)
    return agent, changelog


async def test_resume_keeps_the_agents_queued_events_and_empties_the_changelog_queue():
    app = SimpleNamespace(tables=SimpleNamespace(_changelog_queue=None))
    flow = KeepEventsOnResume(app)  # type: ignore[arg-type]
    agent, changelog = queues(flow)
    app.tables._changelog_queue = changelog
    flow.suspend()
    for offset in (20, 21, 22):  # fetched from the committed offset while the agent was busy
        agent.put_nowait(offset)
        changelog.put_nowait(offset)
    flow.resume()
    assert flow.is_active()
    assert [agent.get_nowait() for _ in range(agent.qsize())] == [20, 21, 22]
    assert changelog.empty()
    # Revocation still empties every queue (Faust then seeks to the committed offsets).
    agent.put_nowait(23)
    flow.clear()
    assert agent.empty()


async def test_faust_flow_control_alone_drops_them():
    # The behaviour KeepEventsOnResume replaces (if mode changes it, this says so).
    flow = FlowControlEvent()
    agent, _ = queues(flow)
    agent.put_nowait(20)
    flow.resume()
    assert agent.empty()


def test_the_worker_app_uses_it(tmp_path):
    app = make_faust_app(stream_config("127.0.0.1:9", str(tmp_path)), "t-flow")
    assert isinstance(app.flow_control, KeepEventsOnResume)
