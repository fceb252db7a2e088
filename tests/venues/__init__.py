"""Buildings the tests import and route through, each built from a seed or converted
from real data: IMDF venues of our own (`imdf_venues.py`, `imdf_shared_ordinals.py`),
Quayside House and the viewer's venue (`viewer_buildings.py`), a bilingual clinic
(`bilingual_clinic.py`), Old Market, the Food Hall and a venue of dead ends
(`old_market.py`, `food_hall.py`, `dead_ends.py`), a railway station in
OpenStreetMap's Simple Indoor Tagging (`osm_station.py`), three real OpenStreetMap
places (`osm_places.py`; ODbL), and Westport House, Dundee, as an IMDF archive
(`westport_imdf.py`; CC BY 4.0, its attribution there)."""
