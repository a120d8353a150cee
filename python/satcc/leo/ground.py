"""Ground stations and end hosts at a latitude, longitude and height on the
WGS-84 ellipsoid (NIMA TR8350.2, 2000), their Earth-fixed positions, the
elevation angle at which they see a satellite, and the cities Hypatia
(Kassing et al., IMC 2020) places its ground stations in: the
100 most populous metropolitan areas by 2025 estimate, in Hypatia's order
(its input_data/ground_stations_cities_sorted_by_estimated_2025_pop_top_100),
so that city i here is Hypatia's ground station i."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_WGS84_A = 6378137.0
_WGS84_F = 1 / 298.257223563
_E2 = _WGS84_F * (2 - _WGS84_F)


@dataclass(frozen=True)
class Station:
    name: str
    lat_deg: float
    lon_deg: float
    alt_m: float = 0.0


def ecef(lat_deg, lon_deg, alt_m=0.0) -> np.ndarray:
    """Earth-fixed position (..., 3) in metres of geodetic coordinates."""
    lat, lon = np.radians(lat_deg), np.radians(lon_deg)
    n = _WGS84_A / np.sqrt(1 - _E2 * np.sin(lat) ** 2)
    return np.stack(
        (
            (n + alt_m) * np.cos(lat) * np.cos(lon),
            (n + alt_m) * np.cos(lat) * np.sin(lon),
            (n * (1 - _E2) + alt_m) * np.sin(lat),
        ),
        axis=-1,
    )


def up(lat_deg, lon_deg) -> np.ndarray:
    """The ellipsoid's outward normal (the local vertical), (..., 3)."""
    lat, lon = np.radians(lat_deg), np.radians(lon_deg)
    return np.stack((np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)), axis=-1)


def positions(stations: list[Station]) -> np.ndarray:
    """(stations, 3) Earth-fixed positions in metres."""
    lat = np.array([s.lat_deg for s in stations])
    lon = np.array([s.lon_deg for s in stations])
    alt = np.array([s.alt_m for s in stations])
    return ecef(lat, lon, alt)


def elevation_deg(stations: list[Station], sat_ecef: np.ndarray) -> np.ndarray:
    """Elevation angle (stations, satellites) of satellites at (satellites,
    3) Earth-fixed positions, above each station's local horizon."""
    los = sat_ecef[None, :, :] - positions(stations)[:, None, :]
    normal = np.stack([up(s.lat_deg, s.lon_deg) for s in stations])
    sin_el = np.einsum("gsk,gk->gs", los, normal) / np.linalg.norm(los, axis=-1)
    return np.degrees(np.arcsin(np.clip(sin_el, -1.0, 1.0)))


def visible(stations: list[Station], sat_ecef: np.ndarray, min_elevation_deg: float) -> np.ndarray:
    """Boolean (stations, satellites): seen at or above the minimum elevation."""
    return elevation_deg(stations, sat_ecef) >= min_elevation_deg


# Hypatia's top-100 cities (name, latitude, longitude), its order and
# coordinates; names shortened to their English form.
_CITIES = (
    ("Tokyo", 35.6895, 139.69171),
    ("Delhi", 28.66667, 77.21667),
    ("Shanghai", 31.22222, 121.45806),
    ("São-Paulo", -23.5475, -46.63611),
    ("Bombay", 19.073975, 72.880838),
    ("Mexico-City", 19.427318, -99.141869),
    ("Beijing", 39.9075, 116.39723),
    ("Osaka", 34.675834, 135.553823),
    ("Cairo", 30.039173, 31.239411),
    ("New-York-Newark", 40.717042, -74.003663),
    ("Dhaka", 23.7104, 90.40744),
    ("Karachi", 24.9056, 67.0822),
    ("Buenos-Aires", -34.605083, -58.400368),
    ("Calcutta", 22.533455, 88.356045),
    ("Istanbul", 41.0138, 28.9497),
    ("Chongqing", 29.56278, 106.55278),
    ("Lagos", 6.45306, 3.39583),
    ("Manila", 14.6042, 120.9822),
    ("Rio-de-Janeiro", -22.90278, -43.2075),
    ("Guangzhou-Guangdong", 23.125457, 113.257374),
    ("Los-Angeles-Long-Beach-Santa-Ana", 34.031656, -118.241716),
    ("Moscow", 55.754996, 37.621849),
    ("Kinshasa", -4.32758, 15.31357),
    ("Tianjin", 39.108842, 117.18862),
    ("Paris", 48.85341, 2.3488),
    ("Shenzhen", 22.541487, 114.063427),
    ("Jakarta", -6.211831, 106.841646),
    ("London", 51.50853, -0.12574),
    ("Bangalore", 12.97194, 77.59369),
    ("Lima", -12.04318, -77.02824),
    ("Madras", 13.053091, 80.24875),
    ("Seoul", 37.56826, 126.97783),
    ("Bogotá", 4.60971, -74.08175),
    ("Nagoya", 35.18147, 136.90641),
    ("Johannesburg", -26.20227, 28.04363),
    ("Bangkok", 13.721964, 100.525248),
    ("Hyderabad", 17.37528, 78.47444),
    ("Chicago", 41.85003, -87.65005),
    ("Lahore", 31.5497222, 74.3436111),
    ("Tehran", 35.69439, 51.42151),
    ("Wuhan", 30.58333, 114.26667),
    ("Chengdu", 30.66667, 104.06667),
    ("Dongguan", 23.02116, 113.741411),
    ("Nanjing-Jiangsu", 32.048183, 118.789812),
    ("Ahmadabad", 23.03333, 72.61667),
    ("Hong-Kong", 22.279588, 114.188697),
    ("Ho-Chi-Minh-City", 10.75, 106.66667),
    ("Foshan", 23.022778, 113.119953),
    ("Kuala-Lumpur", 3.1412, 101.68653),
    ("Baghdad", 33.34058, 44.40088),
    ("Santiago", -33.45694, -70.64827),
    ("Hangzhou", 30.29365, 120.16142),
    ("Riyadh", 24.690466, 46.709566),
    ("Shenyang", 41.79222, 123.43278),
    ("Madrid", 40.4165, -3.70256),
    ("Xi'an-Shaanxi", 34.289413, 108.940242),
    ("Toronto", 43.70011, -79.4163),
    ("Miami", 25.789097, -80.204044),
    ("Poona", 18.516057, 73.861578),
    ("Belo-Horizonte", -19.92083, -43.93778),
    ("Dallas-Fort-Worth", 32.72541, -97.32085),
    ("Surat", 21.16667, 72.83333),
    ("Houston", 29.7601927, -95.3693896),
    ("Singapore", 1.28967, 103.85007),
    ("Philadelphia", 39.95234, -75.16379),
    ("Kitakyushu-Fukuoka-M.M.A.", 33.6064, 130.4181),
    ("Luanda", -8.83682, 13.23432),
    ("Suzhou-Jiangsu", 31.302068, 120.585259),
    ("Haerbin", 45.756325, 126.646688),
    ("Barcelona", 41.38879, 2.15899),
    ("Atlanta", 33.76, -84.4),
    ("Khartoum", 15.55177, 32.53241),
    ("Dar-es-Salaam", -6.82349, 39.26951),
    ("Saint-Petersburg", 59.929858, 30.326228),
    ("Washington-D.C.", 38.89511, -77.03637),
    ("Abidjan", 5.345339, -4.026789),
    ("Guadalajara", 20.66667, -103.33333),
    ("Yangon", 16.80528, 96.15611),
    ("Alexandria", 31.192471, 29.904596),
    ("Ankara", 39.91987, 32.85427),
    ("Kabul", 34.528887, 69.17246),
    ("Qingdao", 36.09861, 120.37194),
    ("Chittagong", 22.33306, 91.83639),
    ("Monterrey", 25.66667, -100.31667),
    ("Sydney", -33.86785, 151.20732),
    ("Dalian", 38.913811, 121.602322),
    ("Xiamen", 24.47979, 118.08187),
    ("Zhengzhou", 34.75778, 113.64861),
    ("Boston", 42.347919, -71.06453),
    ("Melbourne", -37.814, 144.96332),
    ("Brasília", -15.77972, -47.92972),
    ("Jiddah", 21.51694, 39.21917),
    ("Phoenix-Mesa", 33.449454, -112.074743),
    ("Ji'nan-Shandong", 36.676721, 116.997142),
    ("Montréal", 45.50884, -73.58781),
    ("Shantou", 23.36814, 116.71479),
    ("Nairobi", -1.28333, 36.81667),
    ("Medellín", 6.25184, -75.56359),
    ("Fortaleza", -3.74117, -38.543575),
    ("Kunming", 25.03889, 102.71833),
)

CITIES: dict[str, Station] = {name: Station(name, lat, lon) for name, lat, lon in _CITIES}


def _key(name: str) -> str:
    return name.strip().lower().replace(" ", "-").replace("_", "-")


_BY_KEY = {_key(n): s for n, s in CITIES.items()}


def city(name: str) -> Station:
    """A built-in city by name (case and spaces/hyphens do not matter)."""
    try:
        return _BY_KEY[_key(name)]
    except KeyError:
        raise ValueError(f"unknown city {name!r} (see satcc.leo.ground.CITIES)") from None


def city_index(name: str) -> int:
    """The city's position in Hypatia's list (its ground station id)."""
    return list(CITIES).index(city(name).name)
