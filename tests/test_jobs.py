"""The background job a page watches: result, failure, progress, and a stop the work hears."""

import threading

import pytest

from engine.errors import PathLensError
from engine.jobs import Job, seconds_left


def test_a_job_returns_its_work_and_reports_progress():
    release = threading.Event()

    def work(progress, stop):
        progress("questions", 1, 4)
        release.wait(5)
        return 42

    job = Job("t", work).start()
    for _ in range(100):
        if job.status().done == 1:
            break
        threading.Event().wait(0.01)
    s = job.status()
    assert (s.step, s.done, s.total, s.over, s.cancelled, s.error) == ("questions", 1, 4, False, False, None)
    assert s.fraction() == 0.25
    with pytest.raises(RuntimeError, match="still running"):
        job.result()
    release.set()
    assert job.wait(5) and job.result() == 42 and job.status().over


def test_cancel_reaches_the_work_through_should_stop():
    started = threading.Event()

    def work(progress, stop):
        started.set()
        for _ in range(5000):  # 5 s at most, unless told to stop
            if stop():
                return "stopped"
            threading.Event().wait(0.001)
        return "ran to the end"

    job = Job("t", work).start()
    assert started.wait(5)
    job.cancel()
    assert job.wait(10) and job.status().cancelled and job.result() == "stopped"


@pytest.mark.parametrize("exc,message", [(PathLensError("no file at x"), "no file at x"),
                                         (ValueError("bad"), "ValueError: bad")])
def test_a_failure_is_kept_for_whoever_watches(exc, message):
    def work(progress, stop):
        raise exc

    job = Job("t", work).start()
    assert job.wait(5)
    assert job.status().error == message
    with pytest.raises(PathLensError, match=message):
        job.result()


def test_seconds_left_is_the_rate_so_far():
    assert seconds_left(10.0, 2, 6) == 20.0  # 5 s each, 4 to go
    assert seconds_left(10.0, 0, 6) is None and seconds_left(10.0, 6, 6) is None and seconds_left(1.0, 1, 0) is None


def test_a_sweeps_trials_give_a_time_left_after_two_of_them_a_second_apart():
    from engine.jobs import JobStatus

    # 40 quick trials: the count's clock starts at the first trial's end, so no warm-up hides in it
    assert JobStatus("trials", 3, 40, 1.5, False, False, None).seconds_left() == pytest.approx(1.5 / 3 * 37)
    assert JobStatus("trials", 1, 40, 5.0, False, False, None).seconds_left() is None  # one trial is no rate
    assert JobStatus("trials", 3, 40, 0.5, False, False, None).seconds_left() is None
    # a build's passages still wait for their warm-up to pass
    assert JobStatus("embeddings", 3, 40, 1.5, False, False, None).seconds_left() is None


def test_an_early_rate_is_not_an_estimate_until_it_settles():
    assert seconds_left(1.0, 1, 486) is None  # 1 of 486 after a second: warm-up, not a rate
    assert seconds_left(2.0, 30, 486) is None  # enough items, too little time
    assert seconds_left(10.0, 30, 486) == pytest.approx(10.0 / 30 * 456)


def test_a_job_still_running_at_exit_is_stopped_and_waited_for():
    """The interpreter's exit asks running jobs to stop and waits for them: a job thread left inside a model's native
    code as the interpreter finalized aborted the process (exit status 134)."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    code = ("import time, sys\n"
            "from engine.jobs import Job\n"
            "def work(progress, should_stop):\n"
            "    while not should_stop():\n"
            "        time.sleep(0.01)\n"
            "    time.sleep(0.2)  # the work's own clean-up, after the stop\n"
            "    print('stopped cleanly', flush=True)\n"
            "Job('forever', work).start()\n"
            "print('main ends', flush=True)\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and p.stdout.splitlines() == ["main ends", "stopped cleanly"]
