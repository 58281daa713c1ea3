"""GET /ascend-lab/api/class: the hub service's instructor view, through this server."""

import json

import pytest
from tornado.httpclient import HTTPClientError

from tests.server.test_hub_status import _Service


async def test_not_under_the_hub_is_404(jp_fetch, monkeypatch):
    monkeypatch.delenv("ASCEND_LAB_HUB_SERVICE_URL", raising=False)
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("ascend-lab", "api", "class")
    assert e.value.code == 404


async def test_proxies_the_service_with_the_servers_token(jp_fetch, monkeypatch):
    doc = {"learners": [{"user": "ann", "chip": 2}], "activity_error": ""}
    service = _Service(json.dumps(doc).encode())
    monkeypatch.setenv("ASCEND_LAB_HUB_SERVICE_URL", service.url)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "server-token")
    try:
        response = await jp_fetch("ascend-lab", "api", "class")
    finally:
        service.close()
    assert json.loads(response.body) == doc
    assert service.requests == [("/services/ascend-lab/api/class", "token server-token")]


async def test_a_learner_gets_the_services_403(jp_fetch, monkeypatch):
    service = _Service(b'{"message": "the class view is for instructors"}', status=403)
    monkeypatch.setenv("ASCEND_LAB_HUB_SERVICE_URL", service.url)
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "server-token")
    try:
        with pytest.raises(HTTPClientError) as e:
            await jp_fetch("ascend-lab", "api", "class")
    finally:
        service.close()
    assert e.value.code == 403


async def test_without_a_token_is_refused(jp_fetch, monkeypatch):
    monkeypatch.setenv("ASCEND_LAB_HUB_SERVICE_URL", "http://127.0.0.1:1/")
    with pytest.raises(HTTPClientError) as e:
        await jp_fetch("ascend-lab", "api", "class", headers={"Authorization": ""})
    assert e.value.code == 403
