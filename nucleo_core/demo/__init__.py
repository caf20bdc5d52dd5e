"""The thinker shipped with nucleo, which ``nucleo demo`` runs: the whole design in one story.

A `PicnicPlanner` starts with no tools. Its model asks for three with ``request_tools``: two are
admitted, the third is refused by an admission rule (`guardrail`), with its reason. It pulls in
the ``picnic-planning`` skill with ``request_skill``, then calls two look-ups in one turn, which
run side by side. A `PlanReviewer`, bound read-only, is given a mutating tool with ``add_tool``
while its model thinks; the model calls it, and the call is refused at the call. A `PicnicHost`
calls its high-risk ``send_invitations`` twice in one turn, in a durable conversation: the
guard makes each call ``confirm``; a scripted approver (`scripted_approver`) approves the one to
the team, which runs, and defers the other, so the run pauses with that approval pending (its
id, tool, risk and arguments told, and how to decide it with ``nucleo approvals``). Then each
thinker's transcript.

With no model configured a script plays the model (`play_the_model`, a function of each
request); with one, the same thinkers run on it. Only ``nucleo demo`` imports this package.
"""

from nucleo_core.demo._narration import STEPS, TRANSCRIPT_STEP, DemoEvent
from nucleo_core.demo._run import DemoRun, demo_hub, run_demo, scripted_catalog
from nucleo_core.demo._script import DEMO_OBJECTIVE, play_the_model
from nucleo_core.demo.approver import scripted_approver
from nucleo_core.demo.guardrail import PersonApproves, register_guardrail
from nucleo_core.demo.thinkers import PicnicHost, PicnicPlanner, PlanReviewer

__all__ = [
    "DEMO_OBJECTIVE",
    "STEPS",
    "TRANSCRIPT_STEP",
    "DemoEvent",
    "DemoRun",
    "PersonApproves",
    "PicnicHost",
    "PicnicPlanner",
    "PlanReviewer",
    "demo_hub",
    "play_the_model",
    "register_guardrail",
    "run_demo",
    "scripted_approver",
    "scripted_catalog",
]
