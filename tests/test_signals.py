# SIGTERM as Ctrl-C (satcc.signals): a signal whose exception Python
# swallows, because it landed in a destructor, must still stop the command,
# and without an "Exception ignored" traceback.
import os
import signal

import pytest
from satcc.signals import Terminated, raise_if_terminated, sigterm_as_interrupt


class SignalledWhileClosing:
    """Sends SIGTERM from its destructor, as a pyarrow writer closing in
    `__del__` may be interrupted by one."""

    def __del__(self):
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # the handler runs between byte codes, here
            pass


def test_a_sigterm_swallowed_by_a_destructor_still_terminates(capfd):
    carried_on = False
    with pytest.raises(Terminated):
        with sigterm_as_interrupt():
            SignalledWhileClosing()
            carried_on = True  # Python swallowed the exception in __del__
            raise_if_terminated()
    assert carried_on
    assert "Exception ignored" not in capfd.readouterr().err
    # Outside the context the signal is forgotten and SIGTERM is as before.
    raise_if_terminated()
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_the_context_raises_on_leaving_if_nothing_checked(capfd):
    with pytest.raises(Terminated):
        with sigterm_as_interrupt():
            SignalledWhileClosing()
    assert "Traceback" not in capfd.readouterr().err


def test_an_interrupt_during_a_held_step_comes_after_it():
    # Before: Ctrl-C between storing a run and counting it left the sweep's
    # report one run short of the store.
    from satcc.signals import deferred_interrupts

    steps = []
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupts():
            steps.append("stored")
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # a handler would run here, between byte codes
                pass
            steps.append("counted")
    assert steps == ["stored", "counted"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
