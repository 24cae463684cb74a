from django.conf import settings
from django.core.exceptions import DisallowedHost

from cases.languages import reader_language


def language_links(request):
    """The current page in each language, for the switcher and the hreflang alternates."""
    current = reader_language()
    try:
        request.get_host()
        absolute = request.build_absolute_uri
    except DisallowedHost:  # the 400 page of a Host not allowed: not a 500 in its turn
        absolute = str

    links = []
    for code, name in settings.LANGUAGES:
        params = request.GET.copy()
        params["lang"] = code
        links.append(
            {
                "code": code,
                "name": name,
                "url": f"{request.path}?{params.urlencode()}",
                "absolute_url": absolute(f"{request.path}?{params.urlencode()}"),
                "is_current": code == current,
            }
        )
    # x-default: the address without `lang`, whose language the reader's browser chooses.
    params = request.GET.copy()
    params.pop("lang", None)
    query = params.urlencode()
    default_url = absolute(f"{request.path}?{query}" if query else request.path)
    canonical_url = next(link["absolute_url"] for link in links if link["is_current"])
    return {
        "content_language": current,
        "language_links": links,
        "default_url": default_url,
        "canonical_url": canonical_url,
    }
