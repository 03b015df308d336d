from __future__ import annotations

import pytest

from tests.lms.builders import exercises


@pytest.fixture
def infos():
    return exercises()
