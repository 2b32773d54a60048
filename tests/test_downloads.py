"""biaslib.downloads: the one downloader's mechanics, once (the callers test their registries).

A local fetch stands in for the network in most tests; the default HTTP fetch runs
against a ``http.server`` on 127.0.0.1 in a thread, which honours ``Range`` like the
release servers do (or ignores it, like some do), so resume is tested on real HTTP.
"""

from __future__ import annotations

import hashlib
import http.server
import pickle
import threading
from pathlib import Path

import pytest

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


class _Handler(http.server.BaseHTTPRequestHandler):
    """Serves DATA at any path: honours ``Range`` unless ``ranges`` is off; logs requests."""

    ranges = True
    cut_at: int | None = None
    log: list[str | None]

    def do_GET(self):
        asked = self.headers.get("Range")
        type(self).log.append(asked)
        if self.path.endswith("/missing"):
            self.send_error(404)
            return
        start = int(asked[6:-1]) if asked and self.ranges else 0
        if start >= len(DATA):
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{len(DATA)}")
            self.end_headers()
            return
        body = DATA[start:]
        self.send_response(206 if start else 200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: self.cut_at] if self.cut_at else body)

    def log_message(self, *args):  # quiet
        pass


@pytest.fixture
def server():
    handler = type("Handler", (_Handler,), {"log": []})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    handler.url = f"http://127.0.0.1:{httpd.server_address[1]}/files/data.bin"
    yield handler
    httpd.shutdown()
    httpd.server_close()


def test_http_fetch_whole_file(tmp_path, server, online):
    dest = download(server.url, tmp_path / "data.bin", size=len(DATA), sha256=SHA,
                    progress=False)
    assert dest.read_bytes() == DATA and server.log == [None]


@pytest.mark.parametrize("ranges", [True, False])
def test_http_fetch_resumes_a_part_with_range(tmp_path, server, online, ranges):
    server.ranges = ranges
    (tmp_path / ".data.bin.part").write_bytes(DATA[:4000])
    download(server.url, tmp_path / "data.bin", sha256=SHA, progress=False)
    assert (tmp_path / "data.bin").read_bytes() == DATA and server.log == ["bytes=4000-"]
    assert _listing(tmp_path) == ["data.bin"]


def test_http_fetch_with_a_complete_part(tmp_path, server, online):
    (tmp_path / ".data.bin.part").write_bytes(DATA)
    download(server.url, tmp_path / "data.bin", sha256=SHA, progress=False)  # 416: complete
    assert (tmp_path / "data.bin").read_bytes() == DATA and server.log == [f"bytes={len(DATA)}-"]


def test_http_fetch_cut_short_keeps_the_part_to_resume(tmp_path, server, online):
    server.cut_at = 3000
    with pytest.raises(DownloadError, match="ended after 3000 of 10240 bytes; the 3000 bytes"):
        download(server.url, tmp_path / "data.bin", progress=False)
    assert _listing(tmp_path) == [".data.bin.part"]
    server.cut_at = None
    download(server.url, tmp_path / "data.bin", sha256=SHA, progress=False)
    assert server.log == [None, "bytes=3000-"] and (tmp_path / "data.bin").read_bytes() == DATA


def test_http_fetch_interrupted_by_an_error_keeps_the_part(tmp_path, monkeypatch, online):
    def reset(url, path, progress):
        path.write_bytes(DATA[:500])
        raise ConnectionResetError("reset")

    monkeypatch.setattr(downloads, "http_fetch", reset)
    with pytest.raises(DownloadError, match=r"reset; the 500 bytes .* kept in \.data\.bin\.part"):
        download(URL, tmp_path / "data.bin")
    assert _listing(tmp_path) == [".data.bin.part"]


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


def test_http_fetch_is_the_fetch_signature(tmp_path, server):
    http_fetch(server.url, tmp_path / "x", progress=False)
    assert (tmp_path / "x").read_bytes() == DATA
