"""The Python driver 4.3, which offers Bolt 4.3 down to 4.0 and nothing newer, against Quiver.

Opt-in (tests/drivers/run.sh runs it when QUIVER_DRIVERS_BOLT4=1): the driver is old and
needs its own virtual environment. The server is started by the current drivers' conftest.
"""

import importlib.util
import os

_path = os.path.join(os.path.dirname(__file__), "..", "python", "conftest.py")
_spec = importlib.util.spec_from_file_location("quiver_drivers_conftest", _path)
_shared = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_shared)

USER = _shared.USER
PASSWORD = _shared.PASSWORD
quiver = _shared.quiver
