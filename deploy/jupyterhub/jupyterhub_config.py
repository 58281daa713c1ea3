# JupyterHub for an ascend-lab trial class on one Ascend server.
#
#   scripts/hub_deps.sh                                    # jupyterhub + configurable-http-proxy
#   .venv/bin/jupyterhub -f deploy/jupyterhub/jupyterhub_config.py
#
# Every setting below can be changed by an environment variable (see the README next to
# this file). The ascend-lab part is the call to configure_hub at the end.
import os
import sys

from ascend_lab.hub import configure_hub
from ascend_lab.hub.trial import TrialConfigError, bind_warning, trial_passwords

c = get_config()  # noqa: F821 (given by JupyterHub when it reads this file)


def setting(name, default):
    return os.environ.get("ASCEND_LAB_HUB_" + name, default)


state_dir = os.path.abspath(setting("DIR", "ascend-lab-hub"))  # seats, hub database, homes
os.makedirs(state_dir, exist_ok=True)
bin_dir = os.path.dirname(sys.executable)  # the venv that holds jupyterhub and ascend-lab

# 127.0.0.1 unless ASCEND_LAB_HUB_IP says otherwise (then a warning: see the README)
c.JupyterHub.ip = setting("IP", "127.0.0.1")
if bind_warning(c.JupyterHub.ip):
    print(bind_warning(c.JupyterHub.ip), file=sys.stderr)
c.JupyterHub.port = int(setting("PORT", "8000"))
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = int(setting("API_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:" + setting("PROXY_API_PORT", "8001")
chp = os.path.join(bin_dir, "configurable-http-proxy")  # scripts/hub_deps.sh links it here
if os.path.exists(chp):
    c.ConfigurableHTTPProxy.command = [chp]
c.JupyterHub.db_url = "sqlite:///" + os.path.join(state_dir, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(state_dir, "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(state_dir, "jupyterhub.pid")

# A trial class: learners log in under any name with the learners' password
# (ASCEND_LAB_HUB_PASSWORD); instructors and hub admins only with theirs
# (ASCEND_LAB_HUB_INSTRUCTOR_PASSWORD). No password: the hub does not start.
# Instructors see every chip and learner in the ascend-lab service; hub admins also manage
# users and servers (and see every chip too).
instructors = [n for n in setting("INSTRUCTORS", "").split(",") if n]
admins = {n for n in setting("ADMINS", "").split(",") if n}
try:
    learner_password, instructor_password = trial_passwords(os.environ, set(instructors) | admins)
except TrialConfigError as e:
    sys.exit(f"ascend-lab: the trial hub refuses to start: {e}")
c.JupyterHub.authenticator_class = "ascend_lab.hub.trial_auth.TrialPasswordAuthenticator"
c.Authenticator.allow_all = True
c.Authenticator.admin_users = admins
c.TrialPasswordAuthenticator.password = learner_password
c.TrialPasswordAuthenticator.instructor_password = instructor_password
c.TrialPasswordAuthenticator.instructor_users = set(instructors)

# Every learner's server runs as the hub's own unix user, with a home under state_dir: NO
# isolation between learners (each can read the others' files, tokens in /proc/<pid>/environ,
# the hub's database and cookie secret). For untrusted learners use a spawner with a Unix
# user per learner (LocalProcessSpawner, SystemdSpawner) or Kubernetes: see the README.
c.JupyterHub.spawner_class = "simple"
print(
    "ascend-lab: trial hub: every learner's server runs as this Unix user, with no isolation "
    "between learners (files, tokens, the hub's database); see deploy/jupyterhub/README.md",
    file=sys.stderr,
)
c.SimpleLocalProcessSpawner.home_dir_template = os.path.join(state_dir, "home", "{username}")
c.Spawner.cmd = [os.path.join(bin_dir, "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
if os.geteuid() == 0:  # a container running everything as root: Jupyter refuses without this
    c.Spawner.args = ["--allow-root"]

configure_hub(
    c,
    state_path=os.path.join(state_dir, "seats.json"),
    per_chip=int(setting("PER_CHIP", "2")),
    policy=setting("POLICY", "least-loaded"),
    instructors=instructors,
    interval=float(setting("PROBE_INTERVAL", "5")),
    service_port=int(setting("SERVICE_PORT", "10101")),
)
