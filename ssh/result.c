/*
 * result.c: what an exec brings back (struct ssh_result, ssh.h), freed in
 * one place.  Apart from the front (ssh.c) because both transports free a
 * half-filled result themselves: they depend on this, never on the front.
 */
#include <stdlib.h>
#include <string.h>

#include "ssh.h"

void
ssh_result_free(struct ssh_result *r)
{
	if (r == NULL)
		return;
	free(r->out);
	free(r->err);
	free(r->exit_signal);
	memset(r, 0, sizeof(*r));
	r->exit_status = -1;
}
