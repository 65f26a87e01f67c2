"""deploy/compose.yaml and deploy/k8s/ name only real settings, commands, endpoints and services.

The manifests are parsed, not run (no container runtime here): every
``GAMEROOM_*`` variable they set is a :class:`~gameroom.config.Config`
setting (or one that deploy/gunicorn.conf.py reads), every ``gameroom``
command line parses with the real CLI, the gunicorn command line parses
with gunicorn's own parser and names a real config file and app, the probes
hit real routes of the app, and every host, port, ConfigMap and Secret they
refer to is defined beside them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import fields
from pathlib import Path
from urllib.parse import urlsplit

import flask
import pytest
import yaml
from click.testing import CliRunner
from gunicorn.config import Config as GunicornConfig

import gameroom
from gameroom import wsgi
from gameroom.cli import main
from gameroom.config import Config
from gameroom.eventstore.connect import (
    ClusterURLError,
    is_cluster_url,
    parse_cluster_url,
    refuse_cluster_queue,
)

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
SETTINGS = {f"GAMEROOM_{f.name.upper()}" for f in fields(Config)}
GUNICORN_CONF = DEPLOY / "gunicorn.conf.py"
#: Read by name in deploy/gunicorn.conf.py (the bind address and the number of processes).
DIRECT = set(re.findall(r"environ\.get\([\"'](GAMEROOM_[A-Z0-9_]+)[\"']", GUNICORN_CONF.read_text()))
SECRET_SETTINGS = {"GAMEROOM_SEED_SECRET"}


def _compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def _k8s() -> list[dict]:
    docs = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs += [doc for doc in yaml.safe_load_all(path.read_text()) if doc]
    return docs


def _kind(kind: str) -> list[dict]:
    return [doc for doc in _k8s() if doc.get("kind") == kind]


def _by_name(kind: str) -> dict[str, dict]:
    return {doc["metadata"]["name"]: doc for doc in _kind(kind)}


def _kustomization() -> dict:
    return next(doc for doc in _k8s() if doc.get("kind") == "Kustomization")


def _workloads() -> list[dict]:
    return [doc for doc in _k8s() if doc.get("kind") in ("Deployment", "StatefulSet", "Job")]


def _containers(workload: dict) -> list[dict]:
    return workload["spec"]["template"]["spec"]["containers"]


def _gameroom_containers() -> list[dict]:
    return [c for w in _workloads() for c in _containers(w) if c["image"].startswith("gameroom")]


def _gameroom_services() -> dict[str, dict]:
    return {
        name: svc
        for name, svc in _compose()["services"].items()
        if "gameroom" in str(svc.get("image", "")) or "build" in svc
    }


def _compose_env(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    assert isinstance(env, dict), "compose environment as a mapping"
    return {k: str(v) for k, v in env.items()}


def _k8s_env(container: dict) -> dict[str, str]:
    """The GAMEROOM_* a container gets: its env, and the ConfigMaps and Secrets it loads."""
    configmaps = _by_name("ConfigMap")
    secrets = {g["name"]: g for g in _kustomization().get("secretGenerator", [])}
    env = {e["name"]: e.get("value", "<from a reference>") for e in container.get("env", [])}
    for source in container.get("envFrom", []):
        if "configMapRef" in source:
            env.update(configmaps[source["configMapRef"]["name"]]["data"])
        else:
            generator = secrets[source["secretRef"]["name"]]
            env.update(dict.fromkeys(_secret_keys(generator), "<secret>"))
    return env


def _secret_keys(generator: dict) -> list[str]:
    """The keys of a secretGenerator, from the command that makes its (uncommitted) env file."""
    text = (DEPLOY / "k8s" / "kustomization.yaml").read_text()
    (env_file,) = generator["envs"]
    made = re.findall(rf"printf '([A-Z0-9_]+)=%s\\n'.*\n.*> deploy/k8s/{re.escape(env_file)}", text)
    assert made, f"kustomization.yaml says how to make {env_file}"
    return made


def _every_setting_set() -> set[tuple[str, str]]:
    named = set()
    for name, svc in _compose()["services"].items():
        named |= {(f"compose:{name}", var) for var in _compose_env(svc)}
    for container in _gameroom_containers():
        named |= {(f"k8s:{container['name']}", var) for var in _k8s_env(container)}
    for configmap in _kind("ConfigMap"):
        named |= {(f"k8s:configmap/{configmap['metadata']['name']}", var) for var in configmap["data"]}
    return {(where, var) for where, var in named if var.startswith("GAMEROOM_")}


def test_every_gameroom_variable_the_manifests_set_is_a_real_setting():
    named = _every_setting_set()
    assert ("compose:api", "GAMEROOM_REDIS_URL") in named  # the scan finds names at all
    assert ("k8s:worker", "GAMEROOM_QUEUE_REDIS_URL") in named
    assert {"GAMEROOM_BIND", "GAMEROOM_WEB_WORKERS"} <= DIRECT
    unknown = sorted((where, var) for where, var in named if var not in SETTINGS | DIRECT)
    assert unknown == []


def test_api_processes_and_workers_get_the_same_redis_roles_and_seed_secret():
    needed = {"GAMEROOM_REDIS_URL", "GAMEROOM_QUEUE_REDIS_URL", "GAMEROOM_SEED_SECRET"}
    compose = {name: _compose_env(svc) for name, svc in _gameroom_services().items()}
    assert set(compose) == {"api", "worker"}
    for env in compose.values():
        assert needed <= set(env)
    assert {k: compose["api"][k] for k in needed} == {k: compose["worker"][k] for k in needed}
    k8s = {c["name"]: _k8s_env(c) for c in _gameroom_containers()}
    assert set(k8s) == {"api", "worker"}
    for env in k8s.values():
        assert needed <= set(env)
    assert {k: k8s["api"][k] for k in needed} == {k: k8s["worker"][k] for k in needed}


def test_the_seed_secret_is_never_a_value_written_in_the_manifests():
    # compose: taken from the operator's environment, refusing to start without it
    for svc in _gameroom_services().values():
        assert re.fullmatch(r"\$\{GAMEROOM_SEED_SECRET:\?.+\}", _compose_env(svc)["GAMEROOM_SEED_SECRET"])
    # k8s: only from a generated Secret whose env file is not committed
    for configmap in _kind("ConfigMap"):
        assert not SECRET_SETTINGS & set(configmap["data"])
    assert not _kind("Secret")
    (generator,) = _kustomization()["secretGenerator"]
    assert _secret_keys(generator) == ["GAMEROOM_SEED_SECRET"]
    ignored = (DEPLOY / "k8s" / ".gitignore").read_text().split()
    assert generator["envs"][0] in ignored
    for container in _gameroom_containers():
        assert {"secretRef": {"name": generator["name"]}} in container["envFrom"]


def _gameroom_command_parses(argv: list[str]) -> tuple[int, str]:
    assert argv[0] == "gameroom"
    result = CliRunner().invoke(main, [*argv[1:], "--help"])
    return result.exit_code, result.output


def _commands() -> list[list[str]]:
    found = [svc["command"] for svc in _gameroom_services().values()]
    found += [c["command"] for c in _gameroom_containers()]
    assert all(isinstance(cmd, list) for cmd in found)
    return found


def test_every_gameroom_command_is_a_real_cli_command_with_real_options():
    commands = [cmd for cmd in _commands() if cmd[0] == "gameroom"]
    assert len(commands) == 2  # the compose worker and the k8s worker
    for argv in commands:
        code, output = _gameroom_command_parses(argv)
        assert code == 0, (argv, output)
    # the check can fail: a misspelt option or command is refused
    assert _gameroom_command_parses(["gameroom", "worker", "--queue-urls", "x"])[0] != 0
    assert _gameroom_command_parses(["gameroom", "workers"])[0] != 0


def test_every_gunicorn_command_parses_and_names_the_shipped_config_and_app(monkeypatch):
    commands = [cmd for cmd in _commands() if cmd[0] == "gunicorn"]
    assert len(commands) == 2  # the compose API and the k8s API
    parser = GunicornConfig().parser()
    for argv in commands:
        args = parser.parse_args(argv[1:])
        assert (ROOT / args.config).resolve() == GUNICORN_CONF  # the image's WORKDIR is the repo
        (app_uri,) = args.args
        module, _, attr = app_uri.partition(":")
        assert module == "gameroom.wsgi"
        # The app object resolves through the factory (built lazily on first access).
        made = flask.Flask("made")
        made.config["GAMEROOM"] = Config()
        monkeypatch.setattr(gameroom, "create_app", lambda *args, **kwargs: made)
        monkeypatch.delitem(vars(wsgi), attr, raising=False)
        assert getattr(wsgi, attr) is made
        monkeypatch.delitem(vars(wsgi), attr)
    with pytest.raises(SystemExit):
        parser.parse_args(["--workerz", "2", "gameroom.wsgi:app"])


def _routes(app) -> set[str]:
    return {rule.rule for rule in app.url_map.iter_rules()}


def test_probes_and_health_checks_hit_real_endpoints_on_the_served_port(app):
    routes = _routes(app)
    assert {"/api/healthz", "/api/readyz"} <= routes
    assert "/api/nothing-here" not in routes
    for container in _gameroom_containers():
        if container["name"] != "api":
            continue
        port = int(
            container["env"][[e["name"] for e in container["env"]].index("GAMEROOM_BIND")]["value"].split(
                ":"
            )[1]
        )
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        probes = [container["livenessProbe"]["httpGet"], container["readinessProbe"]["httpGet"]]
        assert {p["path"] for p in probes} == {"/api/healthz", "/api/readyz"}
        for probe in probes:
            assert probe["path"] in routes
            assert ports[probe["port"]] == port
    api = _compose()["services"]["api"]
    bind_port = _compose_env(api)["GAMEROOM_BIND"].split(":")[1]
    assert api["expose"] == [bind_port]
    (url,) = re.findall(r"https?://[^'\"]+", " ".join(api["healthcheck"]["test"]))
    assert urlsplit(url).path in routes and str(urlsplit(url).port) == bind_port


def _redis_hosts(url: str) -> list[tuple[str, int]]:
    """The (host, port) a Redis URL names: every startup node of a cluster URL, as gameroom parses it."""
    if is_cluster_url(url):
        return parse_cluster_url(url)[0]
    parts = urlsplit(url)
    assert parts.scheme == "redis", url
    return [(parts.hostname, parts.port or 6379)]


def test_events_on_the_cluster_and_the_queue_on_a_plain_redis():
    for env in [*map(_compose_env, _gameroom_services().values()), _by_name("ConfigMap")["gameroom"]["data"]]:
        assert is_cluster_url(env["GAMEROOM_REDIS_URL"])
        assert len(_redis_hosts(env["GAMEROOM_REDIS_URL"])) >= 3
        refuse_cluster_queue(env["GAMEROOM_QUEUE_REDIS_URL"])  # RQ needs a plain Redis: raises otherwise
    with pytest.raises(ClusterURLError):
        refuse_cluster_queue(_compose_env(_gameroom_services()["api"])["GAMEROOM_REDIS_URL"])


def test_services_and_ports_the_manifests_refer_to_exist():
    compose = _compose()["services"]
    for svc in _gameroom_services().values():
        for var in ("GAMEROOM_REDIS_URL", "GAMEROOM_QUEUE_REDIS_URL"):
            for host, port in _redis_hosts(_compose_env(svc)[var]):
                assert host in compose and port == 6379, (var, host)
    # nginx proxies to the API service on its bind port, from the file compose mounts
    proxy = compose["proxy"]
    (mount,) = proxy["volumes"]
    conf_path = DEPLOY / mount.split(":")[0]
    upstream = re.search(r"server (\w+):(\d+)", conf_path.read_text())
    assert upstream and upstream.group(1) == "api"
    assert upstream.group(2) == _compose_env(compose["api"])["GAMEROOM_BIND"].split(":")[1]
    # the cluster create job names every node of the cluster
    nodes = {name for name in compose if re.fullmatch(r"redis-\d+", name)}
    assert len(nodes) == 6
    assert set(re.findall(r"(redis-\d+):6379", compose["redis-cluster-create"]["command"])) == nodes
    assert "--cluster-replicas 1" in compose["redis-cluster-create"]["command"]

    services = _by_name("Service")
    statefulsets = _by_name("StatefulSet")
    redis_urls = {k: v for k, v in _by_name("ConfigMap")["gameroom"]["data"].items() if v.startswith("redis")}
    assert set(redis_urls) == {"GAMEROOM_REDIS_URL", "GAMEROOM_QUEUE_REDIS_URL"}
    for name, value in redis_urls.items():
        for host, port in _redis_hosts(value):
            first, _, rest = host.partition(".")
            if rest:  # a StatefulSet pod: <set>-<n>.<service>
                sset = statefulsets[rest]
                assert sset["spec"]["serviceName"] == rest and rest in services
                assert int(first.rsplit("-", 1)[1]) < sset["spec"]["replicas"]
            else:
                assert first in services, name
            assert port == 6379
    cluster = statefulsets["redis-cluster"]
    (create,) = _kind("Job")
    made = set(re.findall(r"(redis-cluster-\d+)\.redis-cluster:6379", _containers(create)[0]["command"][-1]))
    assert made == {f"redis-cluster-{i}" for i in range(cluster["spec"]["replicas"])}
    # the API Service targets the container's named port; the Ingress the Service's port
    api_service = services["gameroom-api"]
    deployment = _by_name("Deployment")["gameroom-api"]
    assert (
        api_service["spec"]["selector"].items()
        <= deployment["spec"]["template"]["metadata"]["labels"].items()
    )
    target = api_service["spec"]["ports"][0]["targetPort"]
    assert target in {p["name"] for p in _containers(deployment)[0]["ports"]}
    (ingress,) = _kind("Ingress")
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == "gameroom-api"
    assert backend["port"]["name"] in {p["name"] for p in api_service["spec"]["ports"]}
    # every file the kustomization lists exists, and every manifest is listed
    listed = set(_kustomization()["resources"])
    assert listed == {p.name for p in (DEPLOY / "k8s").glob("*.yaml")} - {"kustomization.yaml"}


def _seconds(value: str) -> float:
    return float(value.rstrip("s"))


def test_the_proxies_do_not_buffer_live_streams_and_outwait_them():
    longest = Config().sse_max_age
    annotations = _kind("Ingress")[0]["metadata"]["annotations"]
    prefix = "nginx.ingress.kubernetes.io/"
    assert annotations[prefix + "proxy-buffering"] == "off"
    assert _seconds(annotations[prefix + "proxy-read-timeout"]) > longest
    nginx = (DEPLOY / "nginx.conf").read_text()
    stream = re.search(r"location ~ \^/api/matches/\[\^/\]\+/stream\$ \{(.*?)\n    \}", nginx, re.S)
    assert stream, "nginx.conf has a location for live streams"
    settings = dict(
        shlex.split(line.strip().rstrip(";"))[:2]
        for line in stream.group(1).splitlines()
        if line.strip() and not line.strip().startswith("#")
    )
    assert settings["proxy_buffering"] == "off"
    # nginx's error lines quote the request line, ?token= and all: only critical ones for streams
    assert re.search(r"\n\s*error_log \S+ crit;", stream.group(1))
    assert _seconds(settings["proxy_read_timeout"]) > longest
    assert re.fullmatch(r"/api/matches/[^/]+/stream", "/api/matches/abc/stream")
    # the access log leaves query strings (a stream's ?token=) out
    log_format = re.search(r"log_format gameroom '([^']*)'", nginx)
    assert log_format and "$uri" in log_format.group(1)
    assert "$request_uri" not in nginx and "$request " not in log_format.group(1) + " "
    assert "$args" not in nginx and "$query_string" not in nginx


def test_behind_the_proxies_the_api_trusts_one_hop_of_x_forwarded_for_and_keeps_its_per_client_cap():
    """The per-client stream cap counts players, not the proxy: nginx appends the client address
    in every location and the API trusts that one hop; the cap is not raised to work around it."""
    nginx = (DEPLOY / "nginx.conf").read_text()
    locations = re.findall(r"\n    location [^{]*\{(.*?)\n    \}", nginx, re.S)
    assert len(locations) == 2
    for location in locations:
        assert re.search(r"\n\s*proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;", location)
    compose = {name: _compose_env(svc) for name, svc in _gameroom_services().items()}
    k8s = {c["name"]: _k8s_env(c) for c in _gameroom_containers()}
    for api in (compose["api"], k8s["api"]):
        assert api["GAMEROOM_TRUSTED_PROXIES"] == "1"
        assert "GAMEROOM_SSE_MAX_STREAMS_PER_CLIENT" not in api  # the default cap, per real client
    assert Config.from_env(compose["api"] | {"GAMEROOM_SEED_SECRET": "x"}).trusted_proxies == 1


def test_an_image_build_leaves_out_data_secrets_and_virtualenvs():
    """The Containerfile copies the whole checkout: the embedded Redis's data (var/, whose AOF holds
    the seed secret), deploy/k8s's seed-secret.env (made beside the build command in deploy/README),
    virtualenvs and git history must not reach an image layer."""
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".git", ".venv", "var", "deploy/k8s/*.env"} <= ignored
    assert "COPY . ." in (DEPLOY / "Containerfile").read_text()


def test_the_image_installs_every_shipped_game_and_does_not_run_as_root():
    containerfile = (DEPLOY / "Containerfile").read_text()
    [install] = [line for line in containerfile.splitlines() if "pip install" in line]
    examples = sorted(p.parent.name for p in (ROOT / "examples").glob("*/pyproject.toml"))
    assert examples and all(f"./examples/{name}" in install for name in examples), examples
    users = re.findall(r"(?m)^USER\s+(\S+)", containerfile)
    assert users and users[-1] not in ("root", "0")
