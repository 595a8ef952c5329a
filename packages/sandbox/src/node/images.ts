// Image references as a container runtime reports them: a tag after the
// last path part (a registry port is no tag) and Docker Hub's defaults
// (docker.io, library/, :latest), as containerd's reference normalization
// (github.com/distribution/reference, ParseNormalizedNamed) fills them in.

/** A tag at the end of an image reference, not a registry port. */
export function imageTag(image: string): string | undefined {
  const last = image.slice(image.lastIndexOf('/') + 1);
  const at = last.indexOf('@');
  const name = at >= 0 ? last.slice(0, at) : last;
  const colon = name.lastIndexOf(':');
  return colon >= 0 ? name.slice(colon + 1) : undefined;
}

/** Docker Hub's defaults, as the container runtime reports image names. */
export function fullImageName(image: string): string {
  const first = image.split('/')[0]!;
  const hasRegistry =
    image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  let name = hasRegistry ? image : `docker.io/${image.includes('/') ? '' : 'library/'}${image}`;
  if (imageTag(name) === undefined && !name.includes('@')) name += ':latest';
  return name;
}
