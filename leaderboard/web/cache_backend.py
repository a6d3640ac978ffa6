"""Django's Redis cache, failing soft: while Redis does not answer, a read is a miss and a write
is dropped, so pages are computed from the database instead of failing.

The board cache lives here when CACHE_URL names a Redis server, so every web and worker process
shares one board and one generation key: a run finished by a worker, or an admin edit in another
web process, is seen by the next request anywhere.
"""

from collections.abc import Iterable
from types import EllipsisType
from typing import Any

from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

_DOWN = (RedisError, OSError)


class FailSoftRedisCache(RedisCache):
    def get(self, key: Any, default: Any | None = None, version: int | None = None) -> Any:
        try:
            return super().get(key, default, version)
        except _DOWN:
            return default

    def get_many(self, keys: Iterable[Any], version: int | None = None) -> dict[Any, Any]:
        try:
            return super().get_many(keys, version)
        except _DOWN:
            return {}

    def set(
        self,
        key: Any,
        value: Any,
        timeout: float | None | EllipsisType = ...,  # ...: the cache's default timeout
        version: int | None = None,
    ) -> None:
        try:
            if timeout is ...:
                return super().set(key, value, version=version)
            return super().set(key, value, timeout, version)
        except _DOWN:
            return None

    def delete(self, key: Any, version: int | None = None) -> bool:
        try:
            return super().delete(key, version)
        except _DOWN:
            return False
