"""What a column's or table's name says: its words, and whether it names a key, a contact detail, an audit stamp.

Names only break ties in the roles draft: declared keys and the data decide first. These readings are what the
name adds: `BirthDate` is a date but not when anything happened, `Fax` has few values but is not worth grouping by.
"""

import re
from itertools import pairwise

_SPLIT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
KEY_WORDS = frozenset({"id", "key", "uuid", "guid", "no", "nr", "num", "number", "pk", "fk", "sku", "isbn", "ean"})
"""Last words of an identifier's name (`CustomerId`, `order_no`, `customerNumber`)."""
_AUDIT = frozenset({"update", "updated", "modified", "modify", "modification", "deleted", "synced", "etl"})
_AUDIT_PAIRS = frozenset(
    {
        ("last", "update"),
        ("last", "changed"),
        ("row", "version"),
        ("load", "date"),
        ("loaded", "at"),
        ("ingested", "at"),
    }
)
_BIRTH = frozenset({"birth", "birthday", "dob", "born", "birthdate"})
_CONTACT = frozenset(
    {
        "phone",
        "fax",
        "mobile",
        "cell",
        "telephone",
        "tel",
        "email",
        "mail",
        "address",
        "address1",
        "address2",
        "street",
        "postal",
        "postcode",
        "zip",
        "zipcode",
        "website",
        "url",
        "homepage",
        "ssn",
        "password",
        "iban",
        "passport",
        "picture",
        "photo",
        "notes",
        "username",
        "login",
        "extension",
        "courtesy",
        "salutation",
    }
)
_PERSON = frozenset({"first", "last", "middle", "given", "surname", "family", "full", "firstname", "lastname"})
_LIFECYCLE = frozenset(
    {"joined", "join", "signup", "signed", "registered", "registration", "hired", "hire", "launched", "launch",
     "onboarded", "founded", "established", "listed", "since", "birth"}
)
_PERSON_ROLES = frozenset(
    {"manager", "owner", "rep", "representative", "agent", "assignee", "assigned", "author", "reviewer", "approver",
     "recruiter", "person", "employee", "salesperson", "seller", "buyer", "customer", "user", "by"}
)
_CALENDAR = frozenset({"year", "month", "day", "week", "quarter", "hour", "weekday", "years", "months"})
_PLACE = frozenset({"latitude", "longitude", "lat", "lng", "lon", "long"})


def words(name: str) -> list[str]:
    """The name's words, lower case: `BillingCountry` -> billing, country; `order_date` -> order, date."""
    spaced = _SPLIT.sub(" ", name)
    return [w for w in re.split(r"[\s_\-./]+", spaced.lower()) if w]


def phrase(name: str) -> str:
    """The name as words: `MediaTypeId` -> `media type id`."""
    return " ".join(words(name))


def singular(word: str) -> str:
    """An English noun's singular (`categories` -> `category`, `details` -> `detail`)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
        return word[:-1]
    return word


def table_noun(name: str) -> str:
    """What one row of a table is, in words: `InvoiceLine` -> `invoice line`, `order_details` -> `order detail`."""
    parts = words(name)
    if parts and parts[0] in ("tbl", "tb", "t", "dim", "fact", "fct"):
        parts = parts[1:] or parts
    return " ".join([*parts[:-1], singular(parts[-1])]) if parts else name.lower()


def names_key(name: str) -> bool:
    """The name reads as an identifier: `id`, `CustomerId`, `order_id`, `customerNumber`, `film_key`."""
    parts = words(name)
    return bool(parts) and (parts[-1] in KEY_WORDS or (parts[0] == "id" and len(parts) > 1))


def key_stem(name: str) -> str | None:
    """The table an identifier's name points at: `CustomerId` -> `customer`, `support_rep_id` -> `support rep`."""
    parts = words(name)
    if len(parts) < 2 or parts[-1] not in KEY_WORDS:
        return None
    return " ".join(parts[:-1])


def is_audit(name: str) -> bool:
    """A maintenance stamp (`last_update`, `updated_at`, `ModifiedDate`), not when a business event happened."""
    parts = words(name)
    pairs = set(pairwise(parts))
    return bool(_AUDIT & set(parts)) or bool(_AUDIT_PAIRS & pairs) or name.lower() in ("lastupdate", "ts")


def is_birth(name: str) -> bool:
    """A birth date: when a person was born, not when anything happened in the business."""
    return bool(_BIRTH & set(words(name)))


def is_contact(name: str) -> bool:
    """A contact detail or personal datum: phone, fax, e-mail, street address, postal code, a person's name."""
    parts = words(name)
    found = set(parts)
    if found & _CONTACT:
        return True
    if (parts and parts[0] == "contact") or ("user" in found and "name" in found):
        return True
    return ("name" in found and bool(found & _PERSON)) or bool(found & {"firstname", "lastname", "surname"})


def is_lifecycle(name: str) -> bool:
    """When a thing came to be (`joined_on`, `signup_date`, `launched_at`, `HireDate`): an entity's start, not the
    date of the events that refer to it."""
    return bool(_LIFECYCLE & set(words(name))) or name.lower().startswith(("signup", "hire"))


def names_person(name: str) -> bool:
    """The name says the column holds a person (`sales_manager`, `owner`, `assigned_to`): with values shaped like
    people's names, it is personal data, not a category."""
    return bool(_PERSON_ROLES & set(words(name)))


def is_calendar_part(name: str) -> bool:
    """A calendar part held as a number (`year`, `month`): a time, not a measure."""
    parts = words(name)
    return bool(parts) and parts[-1] in _CALENDAR


def is_coordinate(name: str) -> bool:
    """A map coordinate: numeric but never summed."""
    return bool(_PLACE & set(words(name)))
