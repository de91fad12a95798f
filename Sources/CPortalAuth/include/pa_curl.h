#ifndef PA_CURL_H
#define PA_CURL_H
/* placeholder: filled in by its owner */
#endif
