"""The two model bases every daemon body derives from.

snake_case in Python, camelCase on the wire (the daemon reads only
camelCase on hook bodies; the few snake_case wire names carry an explicit
alias). Requests forbid unknown attributes so a typo fails loudly and names
itself; responses keep unknown fields so a newer daemon never breaks an
older client.

Requests also refuse NaN and infinities: JSON has no spelling for them, so
the serialiser would send ``null`` and the daemon would quietly store its
default (an ``importance`` of NaN became 0.8) instead of the caller learning
the value was not a number.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = ["RequestModel", "ResponseModel", "SignetModel"]


class SignetModel(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        loc_by_alias=False,
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON object the daemon receives: aliases, only fields that were set."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class RequestModel(SignetModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class ResponseModel(SignetModel):
    model_config = ConfigDict(extra="allow")
