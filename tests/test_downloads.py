"""biaslib.downloads: the one downloader's mechanics, once (the callers test their registries).

A local fetch stands in for the network in most tests; the default HTTP fetch runs
against a ``http.server`` on 127.0.0.1 in a thread, which honours ``Range`` and
``If-Range`` like the release servers do (or ignores them, like some do), sends strong,
weak or no validators, can change its file between two attempts and drop the connection
half-way, so resume is tested on real HTTP: a resumed file is never the start of one
file spliced onto the rest of another.
"""

from __future__ import annotations

import contextlib
import email.utils
import hashlib
import http.server
import json
import pickle
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from biaslib import downloads
from biaslib.downloads import download, http_fetch, offline_setting, sha256_of
from biaslib.errors import DownloadError

DATA = bytes(range(256)) * 40  # 10,240 bytes
SHA = hashlib.sha256(DATA).hexdigest()
URL = "https://example.org/files/data.bin"


@pytest.fixture
def online(monkeypatch):
    """Downloads on, whatever the environment running the tests says."""
    for name in downloads.OFFLINE_ENV:
        monkeypatch.delenv(name, raising=False)


class Serve:
    """A fetch writing ``data`` (or raising half-way), counting its calls."""

    def __init__(self, data: bytes = DATA, fail_after: int | None = None,
                 error: type[BaseException] = ConnectionResetError) -> None:
        self.data, self.fail_after, self.error, self.calls = data, fail_after, error, []

    def __call__(self, url: str, path: Path) -> None:
        self.calls.append((url, path.stat().st_size if path.exists() else 0))
        with path.open("wb") as out:
            if self.fail_after is not None:
                out.write(self.data[: self.fail_after])
                raise self.error("connection reset by peer")
            out.write(self.data)


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_sha256_of_matches_hashlib(tmp_path):
    (tmp_path / "f").write_bytes(DATA)
    assert sha256_of(tmp_path / "f") == SHA


def test_cache_folder_follows_biaslib_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("BIASLIB_CACHE_DIR", str(tmp_path))
    assert downloads.cache_folder("images") == tmp_path / "images"
    monkeypatch.delenv("BIASLIB_CACHE_DIR")
    assert downloads.cache_folder("x") == Path.home() / ".cache" / "biaslib" / "x"


def test_whole_file_checked_and_renamed(tmp_path):
    fetch = Serve()
    dest = tmp_path / "sub" / "data.bin"
    assert download(URL, dest, size=len(DATA), sha256=SHA.upper(), fetch=fetch) == dest
    assert dest.read_bytes() == DATA and _listing(dest.parent) == ["data.bin"]
    assert fetch.calls == [(URL, 0)]


def test_existing_file_is_not_fetched_again(tmp_path):
    fetch = Serve()
    dest = tmp_path / "data.bin"
    download(URL, dest, size=len(DATA), sha256=SHA, fetch=fetch)
    download(URL, dest, size=len(DATA), sha256=SHA, fetch=fetch)
    download(URL, dest, fetch=fetch)  # nothing to check it against: kept as it is
    assert len(fetch.calls) == 1


def test_stale_file_is_fetched_again_and_replaced_only_when_verified(tmp_path, caplog):
    dest = tmp_path / "data.bin"
    dest.write_bytes(b"an older release")
    with pytest.raises(DownloadError):  # the new bytes are wrong too: the old file stays
        download(URL, dest, sha256=SHA, fetch=Serve(b"corrupt"))
    assert dest.read_bytes() == b"an older release" and _listing(tmp_path) == ["data.bin"]
    download(URL, dest, sha256=SHA, fetch=Serve())
    assert dest.read_bytes() == DATA
    assert "fetching it again" in caplog.text and "SHA-256" in caplog.text


@pytest.mark.parametrize("size,sha256,message", [
    (len(DATA) + 1, None, "10240 bytes, 10241 expected; the download was deleted"),
    (None, "0" * 64, f"SHA-256 {SHA}, {'0' * 64} expected; the download was deleted"),
])
def test_size_or_sha256_mismatch_is_refused_and_nothing_is_left(tmp_path, size, sha256,
                                                                 message):
    dest = tmp_path / "data.bin"
    with pytest.raises(DownloadError) as caught:
        download(URL, dest, size=size, sha256=sha256, fetch=Serve(), what="the toy file")
    err = caught.value
    assert (err.url, err.dest) == (URL, dest) and isinstance(err, OSError)
    assert str(err) == f"the toy file from {URL} (to {dest}): {message}"
    assert _listing(tmp_path) == []


@pytest.mark.parametrize("error", [ConnectionResetError, OSError, ValueError, KeyboardInterrupt])
def test_a_given_fetch_failing_half_way_leaves_nothing(tmp_path, error):
    """Only the default HTTP fetch resumes: another's half-written bytes are deleted."""
    raised = DownloadError if issubclass(error, OSError) else error
    with pytest.raises(raised, match="connection reset by peer") as caught:
        download(URL, tmp_path / "data.bin", size=len(DATA),
                 fetch=Serve(fail_after=100, error=error))
    assert _listing(tmp_path) == []
    if raised is DownloadError:
        assert isinstance(caught.value.__cause__, error) and "kept" not in str(caught.value)


def test_a_part_left_by_a_killed_process_is_handed_to_the_fetch(tmp_path):
    (tmp_path / ".data.bin.part").write_bytes(DATA[:100])
    fetch = Serve()
    download(URL, tmp_path / "data.bin", size=len(DATA), fetch=fetch)
    assert fetch.calls == [(URL, 100)] and (tmp_path / "data.bin").read_bytes() == DATA
    assert _listing(tmp_path) == ["data.bin"]


def test_a_fetch_writing_nothing_is_refused(tmp_path):
    with pytest.raises(DownloadError, match="the fetch wrote nothing"):
        download(URL, tmp_path / "data.bin", fetch=lambda url, path: None)
    assert _listing(tmp_path) == []


@pytest.mark.parametrize("variable,value", [("BIASLIB_OFFLINE", "1"), ("HF_HUB_OFFLINE", "TRUE"),
                                            ("HF_HUB_OFFLINE", "yes")])
def test_offline_refuses_before_fetching(tmp_path, monkeypatch, online, variable, value):
    monkeypatch.setenv(variable, value)
    assert offline_setting() == f"{variable}={value}"
    called = []
    monkeypatch.setattr(downloads, "http_fetch", lambda *a, **k: called.append(a))
    dest = tmp_path / "data.bin"
    with pytest.raises(DownloadError, match=rf"{URL} .*downloads are off \({variable}={value}\)"):
        download(URL, dest)
    assert called == [] and _listing(tmp_path) == []
    dest.write_bytes(DATA[:-1])  # a stale file is not taken for the right one
    with pytest.raises(DownloadError, match=r"stale \(10239 bytes, 10240 expected\); not down"):
        download(URL, dest, size=len(DATA))
    dest.write_bytes(DATA)  # a file already there is used offline
    assert download(URL, dest, sha256=SHA) == dest
    download(URL, tmp_path / "other.bin", fetch=Serve())  # a given fetch is no network call


def test_not_offline_for_other_values(monkeypatch, online):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("BIASLIB_OFFLINE", "")
    assert offline_setting() is None


def test_error_pickles_whole():
    err = pickle.loads(pickle.dumps(DownloadError(URL, Path("/x/y"), "it broke", "Y")))
    assert (err.url, err.dest, err.reason, str(err)) == (URL, Path("/x/y"), "it broke",
                                                        f"Y from {URL} (to /x/y): it broke")


# ------------------------------------------------------------------ the HTTP fetch

# Another file at the same URL: the same size (the case a size check cannot see), longer
# and shorter.
CHANGED = {"same size": bytes(reversed(DATA)), "longer": DATA[::-1] + b"more",
           "shorter": DATA[5000:]}
PART, SIDECAR = ".data.bin.part", ".data.bin.part.validators.json"


class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves ``data`` at any path (404 at ``/missing``), with switches, logging requests.

    ``ranges``/``if_range``: honour ``Range`` and ``If-Range`` (RFC 9110 §13.1.5: the
    range only while the validator matches, else the whole file). ``validators``: which
    to send — ``"both"``, ``"etag"``, ``"last-modified"``, ``"none"``, ``"weak"`` (a weak
    ETag) or ``"recent"`` (a Last-Modified as recent as ``Date``, hence weak).
    ``cut_at``: bytes of the body sent before the connection drops.
    """

    data = DATA
    modified = 1_600_000_000.0  # the file's time; change() moves it
    ranges = True
    if_range = True
    validators = "both"
    cut_at: int | None = None
    log: list[str | None]  # each request's Range
    if_ranges: list[str | None]  # each request's If-Range
    statuses: list[int]

    @classmethod
    def change(cls, data: bytes) -> None:
        cls.data, cls.modified = data, cls.modified + 3600

    @classmethod
    def etag(cls) -> str:
        return '"' + hashlib.sha256(cls.data).hexdigest()[:16] + '"'

    @classmethod
    def last_modified(cls) -> str:
        return email.utils.formatdate(cls.modified, usegmt=True)

    def _validators(self) -> dict[str, str]:
        mode = self.validators
        sent = {}
        if mode in ("both", "etag"):
            sent["ETag"] = self.etag()
        if mode in ("both", "last-modified"):
            sent["Last-Modified"] = self.last_modified()
        if mode == "weak":
            sent["ETag"] = "W/" + self.etag()
        if mode == "recent":
            sent["Last-Modified"] = email.utils.formatdate(time.time(), usegmt=True)
        return sent

    def _reply(self, status: int, headers: dict[str, str]) -> None:
        type(self).statuses.append(status)
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()

    def do_GET(self):
        asked, condition = self.headers.get("Range"), self.headers.get("If-Range")
        type(self).log.append(asked)
        type(self).if_ranges.append(condition)
        if self.path.endswith("/missing"):
            type(self).statuses.append(404)
            self.send_error(404)
            return
        data, validators = self.data, self._validators()
        current = (self.etag(), self.last_modified())  # strong comparison, as the RFC says
        honoured = asked and self.ranges and (
            condition is None or not self.if_range or condition in current)
        start = int(asked[6:-1]) if honoured else 0
        if honoured and start >= len(data):
            self._reply(416, {"Content-Range": f"bytes */{len(data)}", **validators})
            return
        body = data[start:]
        headers = {"Content-Length": str(len(body)), **validators}
        if honoured:
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        self._reply(206 if honoured else 200, headers)
        self.wfile.write(body if self.cut_at is None else body[: self.cut_at])

    def log_message(self, *args):  # quiet
        pass


@contextlib.contextmanager
def _serving():
    """A fresh handler class (its own switches and logs) served on 127.0.0.1."""
    handler = type("Handler", (_Handler,), {"log": [], "if_ranges": [], "statuses": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    handler.url = f"http://127.0.0.1:{httpd.server_address[1]}/files/data.bin"
    try:
        yield handler
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def server():
    with _serving() as handler:
        yield handler


def _cut(server, dest: Path, at: int, **kwargs) -> None:
    """A first attempt whose connection drops after ``at`` bytes of the body."""
    server.cut_at = at
    with pytest.raises(DownloadError, match=f"ended after {at} of"):
        download(server.url, dest, progress=False, **kwargs)
    server.cut_at = None


def test_http_fetch_whole_file(tmp_path, server, online):
    dest = download(server.url, tmp_path / "data.bin", size=len(DATA), sha256=SHA,
                    progress=False)
    assert dest.read_bytes() == DATA and server.log == [None]
    assert _listing(tmp_path) == ["data.bin"]  # no sidecar left


@pytest.mark.parametrize("ranges", [True, False])
def test_a_part_without_validators_resumes_only_under_a_sha256(tmp_path, server, online,
                                                               ranges):
    """A part from an older run (no sidecar): a SHA-256 to check the result allows Range."""
    server.ranges = ranges
    (tmp_path / PART).write_bytes(DATA[:4000])
    download(server.url, tmp_path / "data.bin", sha256=SHA, progress=False)
    assert (tmp_path / "data.bin").read_bytes() == DATA and server.log == ["bytes=4000-"]
    assert server.if_ranges == [None] and server.statuses == [206 if ranges else 200]
    assert _listing(tmp_path) == ["data.bin"]


def test_http_fetch_with_a_complete_part(tmp_path, server, online):
    (tmp_path / PART).write_bytes(DATA)
    download(server.url, tmp_path / "data.bin", sha256=SHA, progress=False)  # 416: complete
    assert (tmp_path / "data.bin").read_bytes() == DATA and server.log == [f"bytes={len(DATA)}-"]


def test_http_fetch_cut_short_keeps_the_part_and_its_validators(tmp_path, server, online):
    with pytest.raises(DownloadError, match="ended after 3000 of 10240 bytes; the 3000 bytes"):
        server.cut_at = 3000
        download(server.url, tmp_path / "data.bin", progress=False)
    assert _listing(tmp_path) == [PART, SIDECAR]
    kept = json.loads((tmp_path / SIDECAR).read_text())
    assert kept == {"url": server.url, "etag": server.etag(),
                    "last_modified": server.last_modified(), "length": len(DATA)}
    server.cut_at = None
    download(server.url, tmp_path / "data.bin", progress=False)
    assert server.log == [None, "bytes=3000-"] and server.statuses == [200, 206]
    assert (tmp_path / "data.bin").read_bytes() == DATA and _listing(tmp_path) == ["data.bin"]


@pytest.mark.parametrize("sha256", [SHA, None])
def test_http_fetch_interrupted_by_an_error_keeps_a_part_it_can_resume(tmp_path, monkeypatch,
                                                                      online, sha256):
    """Bytes without validators are kept only where a SHA-256 will check the result."""
    def reset(url, path, **options):
        path.write_bytes(DATA[:500])
        raise ConnectionResetError("reset")

    monkeypatch.setattr(downloads, "http_fetch", reset)
    with pytest.raises(DownloadError, match="reset") as caught:
        download(URL, tmp_path / "data.bin", sha256=sha256)
    if sha256:
        assert "the 500 bytes fetched are kept in .data.bin.part" in str(caught.value)
        assert _listing(tmp_path) == [PART]
    else:
        assert "kept" not in str(caught.value) and _listing(tmp_path) == []


@pytest.mark.parametrize("validators,sent", [("both", "etag"), ("etag", "etag"),
                                             ("last-modified", "last_modified")])
def test_an_unchanged_file_resumes_with_range_and_if_range(tmp_path, server, online,
                                                           validators, sent):
    server.validators = validators
    dest = tmp_path / "data.bin"
    _cut(server, dest, 3000)
    assert (tmp_path / PART).read_bytes() == DATA[:3000]
    download(server.url, dest, progress=False)
    expected = server.etag() if sent == "etag" else server.last_modified()  # ETag preferred
    assert server.log == [None, "bytes=3000-"] and server.if_ranges == [None, expected]
    assert server.statuses == [200, 206]
    assert dest.read_bytes() == DATA and _listing(tmp_path) == ["data.bin"]


@pytest.mark.parametrize("validators", ["both", "etag", "last-modified"])
@pytest.mark.parametrize("change", sorted(CHANGED))
def test_a_changed_file_is_never_spliced(tmp_path, server, online, validators, change):
    server.validators = validators
    dest = tmp_path / "data.bin"
    _cut(server, dest, 3000)
    server.change(CHANGED[change])
    download(server.url, dest, progress=False)
    assert server.log == [None, "bytes=3000-"] and server.statuses == [200, 200]
    assert dest.read_bytes() == CHANGED[change] and _listing(tmp_path) == ["data.bin"]


def test_a_changed_file_cut_again_resumes_the_new_file(tmp_path, server, online):
    """The 200 that replaced the old bytes also replaced their validators."""
    dest, new = tmp_path / "data.bin", CHANGED["longer"]
    _cut(server, dest, 3000)
    server.change(new)
    _cut(server, dest, 5000)
    assert json.loads((tmp_path / SIDECAR).read_text())["etag"] == server.etag()
    download(server.url, dest, progress=False)
    assert server.log == [None, "bytes=3000-", "bytes=5000-"]
    assert server.statuses == [200, 200, 206] and dest.read_bytes() == new


@pytest.mark.parametrize("validators,change", [("both", "same size"), ("etag", "same size"),
                                               ("last-modified", "longer")])
def test_a_server_ignoring_if_range_is_caught_by_etag_or_length(tmp_path, server, online,
                                                                validators, change):
    """Its 206 for a changed file names another ETag or whole length: asked again, whole."""
    server.validators, server.if_range = validators, False
    dest = tmp_path / "data.bin"
    _cut(server, dest, 3000)
    server.change(CHANGED[change])
    download(server.url, dest, progress=False)
    assert server.log == [None, "bytes=3000-", None] and server.statuses == [200, 206, 200]
    assert dest.read_bytes() == CHANGED[change]


def test_a_server_ignoring_range_gives_the_whole_file_not_a_doubled_one(tmp_path, server,
                                                                        online):
    server.ranges = False
    dest = tmp_path / "data.bin"
    _cut(server, dest, 3000)
    download(server.url, dest, progress=False)
    assert server.log == [None, "bytes=3000-"] and server.statuses == [200, 200]
    assert dest.read_bytes() == DATA and _listing(tmp_path) == ["data.bin"]


@pytest.mark.parametrize("size", [None, len(DATA)])
def test_a_part_without_sidecar_starts_over(tmp_path, server, online, size):
    """An older run's part (no validators kept) and no SHA-256: nothing shows it is the
    same file, so none of it is used (here it is not: a splice would keep its bytes)."""
    (tmp_path / PART).write_bytes(b"x" * 4000)
    download(server.url, tmp_path / "data.bin", size=size, progress=False)
    assert server.log == [None] and (tmp_path / "data.bin").read_bytes() == DATA


@pytest.mark.parametrize("validators", ["none", "weak", "recent"])
def test_without_strong_validators_a_cut_part_is_not_kept(tmp_path, server, online,
                                                          validators):
    server.validators = validators
    dest = tmp_path / "data.bin"
    server.cut_at = 3000
    with pytest.raises(DownloadError, match="ended after 3000 of") as caught:
        download(server.url, dest, progress=False)
    assert "kept" not in str(caught.value) and _listing(tmp_path) == []
    server.cut_at = None
    (tmp_path / PART).write_bytes(DATA[:3000])  # as if the process had been killed
    download(server.url, dest, progress=False)
    assert server.log == [None, None] and dest.read_bytes() == DATA


def test_without_validators_a_sha256_refuses_a_spliced_file(tmp_path, server, online):
    """Resumed blind (no validators, a SHA-256 given), a changed file fails the check."""
    server.validators = "none"
    dest = tmp_path / "data.bin"
    _cut(server, dest, 3000, sha256=SHA)
    assert _listing(tmp_path) == [PART]  # kept: the SHA-256 will check the result
    server.change(CHANGED["same size"])
    with pytest.raises(DownloadError, match=r"SHA-256 .* expected; the download was deleted"):
        download(server.url, dest, sha256=SHA, progress=False)
    assert server.log == [None, "bytes=3000-"] and server.if_ranges == [None, None]
    assert _listing(tmp_path) == []


def test_a_part_larger_than_the_file_starts_over(tmp_path, server, online):
    dest = tmp_path / "data.bin"
    (tmp_path / PART).write_bytes(DATA + b"junk")  # larger than the expected size
    download(server.url, dest, size=len(DATA), sha256=SHA, progress=False)  # no Range
    assert server.log == [None] and dest.read_bytes() == DATA
    _cut(server, dest.with_name("b.bin"), 3000)  # larger than the length in its sidecar
    with (tmp_path / ".b.bin.part").open("ab") as part:
        part.write(DATA)
    download(server.url, dest.with_name("b.bin"), progress=False)
    assert server.log[1:] == [None, None] and dest.with_name("b.bin").read_bytes() == DATA


def test_a_complete_part_with_validators(tmp_path, server, online):
    """All bytes there: 416 while the file is the same, the whole new file once it changed."""
    dest = tmp_path / "data.bin"
    for new in (None, CHANGED["same size"]):
        _cut(server, dest, 3000)
        (tmp_path / PART).write_bytes(server.data)
        if new is not None:
            server.change(new)
        download(server.url, dest, progress=False)
        assert dest.read_bytes() == server.data and _listing(tmp_path) == ["data.bin"]
        dest.unlink()
    assert server.statuses == [200, 416, 200, 200]


def test_a_sidecar_for_another_url_is_not_trusted(tmp_path, server, online):
    dest = tmp_path / "data.bin"
    _cut(server, dest, 3000)
    other = server.url.replace("data.bin", "other.bin")  # the registry's URL changed
    download(other, dest, progress=False)
    assert server.log == [None, None] and dest.read_bytes() == DATA


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first_cut=st.integers(0, len(DATA) - 1), second_cut=st.none() | st.integers(0, 9000),
       change=st.none() | st.sampled_from(sorted(CHANGED)),
       validators=st.sampled_from(["both", "etag", "last-modified", "none", "weak"]),
       ranges=st.booleans())
def test_resume_property_never_a_splice(online, first_cut, second_cut, change, validators,
                                        ranges):
    """Cut, maybe changed, maybe cut again, then finished: always the server's file."""
    with _serving() as server, tempfile.TemporaryDirectory() as folder:
        server.validators, server.ranges = validators, ranges
        dest = Path(folder) / "data.bin"
        _cut(server, dest, first_cut)
        if change is not None:
            server.change(CHANGED[change])
        if second_cut is not None:
            server.cut_at = second_cut
            with contextlib.suppress(DownloadError):  # fewer bytes than the cut: complete
                download(server.url, dest, progress=False)
            server.cut_at = None
        download(server.url, dest, progress=False)
        assert dest.read_bytes() == server.data
        assert sorted(p.name for p in Path(folder).iterdir()) == ["data.bin"]


def test_http_error_names_the_url_and_file(tmp_path, server, online):
    url = server.url.replace("data.bin", "missing")
    with pytest.raises(DownloadError, match=rf"data\.bin from {url} .*HTTPError: HTTP Error 404"):
        download(url, tmp_path / "data.bin", progress=False)
    assert _listing(tmp_path) == []


def test_offline_opens_no_connection(tmp_path, server, monkeypatch, online):
    monkeypatch.setenv("BIASLIB_OFFLINE", "1")
    with pytest.raises(DownloadError, match="downloads are off"):
        download(server.url, tmp_path / "data.bin", progress=False)
    assert server.log == []


def test_offline_refuses_to_resume_too(tmp_path, server, monkeypatch, online):
    """A part and its validators waiting to be resumed: still no connection, left as they are."""
    dest = tmp_path / "data.bin"
    _cut(server, dest, 3000)
    before = {name: (tmp_path / name).read_bytes() for name in (PART, SIDECAR)}
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for kwargs in ({}, {"sha256": SHA}, {"size": len(DATA)}):
        with pytest.raises(DownloadError, match=r"downloads are off \(HF_HUB_OFFLINE=1\)"):
            download(server.url, dest, progress=False, **kwargs)
    assert server.log == [None]
    assert {name: (tmp_path / name).read_bytes() for name in (PART, SIDECAR)} == before


def test_http_fetch_is_the_fetch_signature(tmp_path, server):
    http_fetch(server.url, tmp_path / "x", progress=False)
    assert (tmp_path / "x").read_bytes() == DATA
