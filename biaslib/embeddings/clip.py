"""A CLIP encoder: texts and images in CLIP's joint (projected) embedding space.

ML-EAT's CLIP tests (Wolfe et al. 2024, seed 002, Table 2 and Tables 9–12) compare
image targets with word attributes "after projection to the model's multimodal
text-and-image latent space" (section "Models"): the text tower's pooled output
through ``text_projection`` and the vision tower's through ``visual_projection``,
which :meth:`transformers.CLIPModel.get_text_features` and
:meth:`~transformers.CLIPModel.get_image_features` return. No normalisation is
applied: cosines do not need it.

:class:`ClipEncoder` loads a hub id (``openai/clip-vit-large-patch14-336``…) with
``CLIPModel`` and ``CLIPProcessor``; vectors are computed in batches and kept in the
vector cache (:mod:`biaslib.embeddings.cache`) under a key made of the weights'
fingerprint (hub id and snapshot commit), the kind of input and the input itself (a
text, or an image file's SHA-256, so a renamed file is not embedded twice and a
changed one is).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch
from numpy.typing import NDArray
from tqdm import tqdm

from biaslib.downloads import sha256_of
from biaslib.embeddings.cache import VectorCache, cache_key, open_cache
from biaslib.embeddings.transformer import check_device, hub_snapshot_commit
from biaslib.validation import check_strings

__all__ = ["CLIP_PROMPT", "ClipEncoder"]

#: ML-EAT's prompt for the attribute words (section "Empirical Analysis: Prompting in
#: CLIP"): "a picture that brings to mind [word]"; ``{word}`` marks the word.
CLIP_PROMPT = "a picture that brings to mind {word}"


def _features(output: object) -> torch.Tensor:
    """The projected vectors that ``get_*_features`` returns.

    A tensor in transformers 4; an output whose ``pooler_output`` holds them in 5.
    """
    return output if isinstance(output, torch.Tensor) else output.pooler_output




class ClipEncoder:
    """Projected CLIP text and image embeddings of one hub model.

    Parameters
    ----------
    hub_id
        A Hugging Face id of a CLIP checkpoint (``"openai/clip-vit-base-patch32"``…)
        or a local folder.
    device
        As :func:`biaslib.embeddings.transformer.check_device` (default: CUDA if
        available).
    batch_size
        Inputs per forward pass.
    cache
        The vector cache: ``True`` the default file, ``False``/``None`` none, a path,
        or a :class:`~biaslib.embeddings.cache.VectorCache`.
    progress
        Show progress bars over batches.
    revision
        The hub revision to load (default: the hub's ``main``).

    Attributes
    ----------
    name
        ``"CLIP <hub id>"``.
    fingerprint
        ``"<hub id>@<snapshot commit>"`` (the commit when the hub gives one): the
        exact weights, part of every cache key.
    """

    def __init__(self, hub_id: str, *, device: str | None = None, batch_size: int = 32,
                 cache: bool | str | os.PathLike[str] | VectorCache | None = True,
                 progress: bool = True, revision: str | None = None) -> None:
        from transformers import CLIPModel, CLIPProcessor

        if not isinstance(hub_id, str) or not hub_id:
            raise TypeError(f"hub_id must be a non-empty string, got {hub_id!r}")
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        self.hub_id = hub_id
        self.device = check_device(device)
        self.batch_size = batch_size
        self.progress = progress
        self.cache: VectorCache | None = open_cache(cache)
        kwargs = {"revision": revision} if revision else {}
        self.model = CLIPModel.from_pretrained(hub_id, **kwargs).to(self.device).eval()
        self.processor = CLIPProcessor.from_pretrained(hub_id, **kwargs)
        commit = (getattr(self.model.config, "_commit_hash", None)
                  or hub_snapshot_commit(hub_id, revision))
        self.fingerprint = hub_id + (f"@{commit}" if commit else "")
        self.name = f"CLIP {hub_id}"
        self.short_name = hub_id

    def __repr__(self) -> str:
        return f"ClipEncoder({self.fingerprint!r}, device={self.device!r})"

    def _run(self, kind: str, items: list[object], payloads: list[object],
             compute: object) -> NDArray[np.float32]:
        """Vectors of ``items`` (cached under ``payloads``), computed in batches."""
        config = {"model": self.fingerprint, "kind": kind, "space": "projected"}
        keys = [cache_key(config, p) for p in payloads]
        hits = self.cache.get_many(keys) if self.cache is not None else {}
        todo = list(dict.fromkeys(k for k in keys if k not in hits))
        first = {k: keys.index(k) for k in todo}
        batches = [todo[j:j + self.batch_size] for j in range(0, len(todo), self.batch_size)]
        for batch in tqdm(batches, desc=f"{kind} vectors, {self.hub_id}", unit="batch",
                          disable=not self.progress or len(batches) < 2):
            with torch.no_grad():
                out = compute([items[first[k]] for k in batch])  # type: ignore[operator]
            arrays = np.asarray(out.float().cpu().numpy(), dtype=np.float32)
            fresh = list(zip(batch, arrays, strict=True))
            hits.update(fresh)
            if self.cache is not None:
                self.cache.put_many(fresh)  # now: an interruption keeps this batch
        if not keys:
            return np.zeros((0, self.model.config.projection_dim), dtype=np.float32)
        return np.stack([hits[k] for k in keys]).astype(np.float32)

    def encode_texts(self, texts: Sequence[str], prompt: str | None = None
                     ) -> NDArray[np.float32]:
        """Projected text embeddings, one row per text.

        Parameters
        ----------
        texts
            Words or sentences.
        prompt
            A template with ``{word}`` (e.g. :data:`CLIP_PROMPT`) each text is put in
            first; ``None``: the text alone.
        """
        texts = list(check_strings(texts, "texts", item="text"))
        if prompt is not None:
            if not isinstance(prompt, str) or "{word}" not in prompt:
                raise ValueError(f"prompt must be a string containing '{{word}}', got {prompt!r}")
            texts = [prompt.replace("{word}", t) for t in texts]

        def compute(batch: list[str]) -> torch.Tensor:
            enc = self.processor(text=batch, return_tensors="pt", padding=True, truncation=True)
            enc = {k: v.to(self.device) for k, v in enc.items()}
            return _features(self.model.get_text_features(**enc))

        return self._run("text", list(texts), list(texts), compute)

    def encode_images(self, paths: Sequence[str | os.PathLike[str]]) -> NDArray[np.float32]:
        """Projected image embeddings, one row per image file (converted to RGB).

        Raises
        ------
        FileNotFoundError
            Naming the first path that is not a file.
        ValueError
            Naming a file PIL cannot read as an image.
        """
        from PIL import Image, UnidentifiedImageError

        if isinstance(paths, (str, os.PathLike)):
            raise TypeError("paths must be a sequence of image paths, not a single path")
        paths = [Path(p) for p in paths]
        for p in paths:
            if not p.is_file():
                raise FileNotFoundError(f"image file not found: {p}")

        def load(p: Path) -> Image.Image:
            try:
                with Image.open(p) as im:
                    return im.convert("RGB")
            except (UnidentifiedImageError, OSError) as err:
                raise ValueError(f"{p}: not an image PIL can read ({err})") from err

        def compute(batch: list[Path]) -> torch.Tensor:
            enc = self.processor(images=[load(p) for p in batch], return_tensors="pt")
            return _features(self.model.get_image_features(
                pixel_values=enc["pixel_values"].to(self.device)))

        return self._run("image", paths, [sha256_of(p) for p in paths], compute)
