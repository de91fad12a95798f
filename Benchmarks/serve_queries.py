"""The feature query section 5's scripts send (serve-latency.py, serve-relay.py, serve-compare.py):
one place for the query and for what counts as its right answer (24 features)."""
import time

PARAMS = {"where": "1=1", "outFields": "*", "f": "json"}


def timed(session, url, **kwargs):
    """Sends the query to `url` with `session`; the seconds it took. Raises on a wrong answer."""
    start = time.perf_counter()
    answer = session.get(url, params=PARAMS, timeout=60, **kwargs)
    elapsed = time.perf_counter() - start
    if answer.status_code != 200 or len(answer.json().get("features", [])) != 24:
        raise RuntimeError(f"unexpected answer {answer.status_code}: {answer.text[:200]}")
    return elapsed
